"""docs/cli.md and the command agree: every command it lists exists, and every command
and alias the CLI has is documented there."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ctxbudget.cli import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def documented_commands() -> list[tuple[str, ...]]:
    """The command words of each ``ctxbudget ...`` cell in the doc's command table."""
    found = []
    for cell in re.findall(
        r"^\| `ctxbudget ([a-z][a-z -]*?)(?: [A-Z\[(].*?)?`", DOC.read_text(), re.M
    ):
        found.append(tuple(cell.split()))
    return found


def cli_commands(group: click.Group = main, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    names = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            names += cli_commands(command, (*prefix, name))
        else:
            names.append((*prefix, name))
    return names


@pytest.mark.parametrize("words", documented_commands(), ids=" ".join)
def test_documented_command_exists(runner: CliRunner, words: tuple[str, ...]) -> None:
    result = runner.invoke(main, [*words, "--help"])
    assert result.exit_code == 0, result.output


def test_every_command_is_documented() -> None:
    text = DOC.read_text()
    for words in cli_commands():
        assert re.search(rf"`(ctxbudget )?{re.escape(' '.join(words))}[ `]", text), words
