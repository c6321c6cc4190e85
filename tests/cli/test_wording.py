"""Errors on the command line speak of its options (--format, --counter, -o), not of
library arguments, and say plainly when a figure was adjusted or an input is not taken."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from tests.cli.test_exit_codes import assert_one_error_line

CHAT = {"model": "m", "max_tokens": 1024, "messages": [{"role": "user", "content": "hi"}]}
"""A body that is OpenAI Chat and Anthropic Messages alike."""


def _write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), "utf-8")
    return path


def test_an_unknown_transcript_names_the_format_option(
    runner: CliRunner, tmp_path: Path, ledger_url: str
) -> None:
    path = _write(tmp_path, "other.json", {"hello": 1})
    result = runner.invoke(main, ["session", "import", str(path), "--ledger", ledger_url])
    assert result.exit_code == ExitCode.ERROR
    assert "--format claude-code | codex" in result.stderr
    assert "format=" not in result.stderr


def test_an_ambiguous_chat_transcript_names_the_format_option(
    runner: CliRunner, tmp_path: Path, ledger_url: str
) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    result = runner.invoke(main, ["session", "import", str(path), "--ledger", ledger_url])
    assert "--format openai or --format anthropic" in result.stderr
    assert "format=" not in result.stderr


def test_an_ambiguous_request_body_names_the_format_option(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    line = assert_one_error_line(
        runner.invoke(main, ["context", str(path)]), "format_error", ExitCode.ERROR
    )
    assert "--format openai | anthropic | openai-responses" in line
    assert "format=" not in line


def test_an_unknown_calibrated_profile_names_the_option_and_the_built_in_ones(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "text.txt"
    path.write_text("hello", "utf-8")
    result = runner.invoke(main, ["count", "--counter", "calibrated:nosuch", str(path)])
    line = assert_one_error_line(result, "profile_invalid", ExitCode.ERROR)
    assert "--counter calibrated:nosuch" in line
    assert "claude" in line  # a built-in profile is named
    assert "Errno" not in line


def test_an_unknown_counter_spec_names_the_option(runner: CliRunner, tmp_path: Path) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    result = runner.invoke(main, ["context", str(path), "--format", "openai", "--counter", "x"])
    line = assert_one_error_line(result, "unknown_counter", ExitCode.ERROR)
    assert "--counter x: unknown token counter spec 'x'; valid forms:" in line


def test_an_unknown_vocabulary_keeps_the_librarys_list_of_known_ones(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = tmp_path / "text.txt"
    path.write_text("hello", "utf-8")
    result = runner.invoke(main, ["count", "--counter", "exact:nosuch", str(path)])
    line = assert_one_error_line(result, "unknown_counter", ExitCode.ERROR)
    assert "--counter exact:nosuch: " in line
    assert "known vocabularies: " in line


def test_an_auto_counter_for_an_unknown_model_says_what_it_counts_with(
    runner: CliRunner, tmp_path: Path
) -> None:
    """auto:MODEL falls back to a generic profile for a name it does not know: said, not silent."""
    path = tmp_path / "text.txt"
    path.write_text("hello", "utf-8")
    unknown = runner.invoke(main, ["count", "--counter", "auto:nosuch-model", str(path)])
    assert unknown.exit_code == ExitCode.DONE
    assert "no tokenizer is known for 'nosuch-model'" in unknown.stderr
    known = runner.invoke(main, ["count", "--counter", "auto:gpt-4o", str(path)])
    assert known.stderr == ""


def test_an_empty_counter_spec_is_refused_not_read_as_the_default(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    result = runner.invoke(main, ["context", str(path), "--format", "openai", "--counter", ""])
    assert_one_error_line(result, "unknown_counter", ExitCode.ERROR)


def test_an_output_that_cannot_be_written_says_so_with_its_own_code(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    for target in (tmp_path / "no-dir" / "out.json", tmp_path):
        result = runner.invoke(
            main, ["fit", str(path), "--format", "openai", "--max-input", "999", "-o", str(target)]
        )
        line = assert_one_error_line(result, "output_unwritable", ExitCode.ERROR)
        assert "cannot write" in line


def test_a_window_too_small_for_the_output_limit_is_said(runner: CliRunner, tmp_path: Path) -> None:
    """The reserve cannot be what the body asks for: the note says so, the JSON keeps both."""
    path = _write(tmp_path, "chat.json", CHAT)
    args = ["context", str(path), "--format", "openai", "--window", "10"]
    shown = runner.invoke(main, args)
    assert shown.exit_code == ExitCode.DONE
    assert "output limit of 1,024 tokens does not fit in the window of 10" in shown.stderr
    assert "1,024 asked for" in shown.stdout
    as_json = runner.invoke(main, [*args, "--json"])
    figures = json.loads(as_json.stdout)
    assert figures["output_reserve"] == 9
    assert figures["output_reserve_requested"] == 1024


def test_a_window_that_holds_the_output_limit_gives_no_note(
    runner: CliRunner, tmp_path: Path
) -> None:
    path = _write(tmp_path, "chat.json", CHAT)
    result = runner.invoke(main, ["context", str(path), "--format", "openai", "--window", "8000"])
    assert result.exit_code == ExitCode.DONE
    assert result.stderr == ""


def test_import_from_standard_input_says_a_file_is_needed(
    runner: CliRunner, ledger_url: str
) -> None:
    result = runner.invoke(main, ["session", "import", "-", "--ledger", ledger_url], input="{}")
    assert result.exit_code == ExitCode.USAGE
    assert "not standard input" in result.stderr
    assert "give its path" in result.stderr
