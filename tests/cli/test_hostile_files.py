"""A request file that holds JSON but not an object is named in JSON's words, by every command."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main


@pytest.mark.parametrize(
    ("text", "kind"),
    [("null", "null"), ('"hi"', "string"), ("[1]", "list"), ("3.5", "number"), ("true", "boolean")],
)
@pytest.mark.parametrize("command", [["context"], ["fit", "--max-input", "100"]])
def test_a_body_that_is_not_an_object_is_named_as_json_names_it(
    runner: CliRunner, tmp_path: Path, text: str, kind: str, command: list[str]
) -> None:
    """Not Python's type names: 'a JSON NoneType' and 'a JSON str' were printed."""
    path = tmp_path / "body.json"
    path.write_text(text, "utf-8")
    result = runner.invoke(main, [command[0], str(path), *command[1:]])
    assert result.exit_code == ExitCode.ERROR, result.output
    assert f"holds a JSON {kind}, not a request object" in result.stderr


@pytest.mark.parametrize("command", [["count"], ["context"], ["fit", "--max-input", "100"]])
def test_an_empty_model_name_is_an_unknown_model_not_no_model(
    runner: CliRunner, body_path: Path, command: list[str]
) -> None:
    """`--model ""` (an unset shell variable) used to be ignored silently."""
    result = runner.invoke(main, [command[0], str(body_path), *command[1:], "--model", ""])
    assert result.exit_code == ExitCode.ERROR, result.output
    assert "[unknown_model]" in result.stderr
