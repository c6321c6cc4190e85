"""A session id the ledger does not hold is an error in every command that reads one session."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main


@pytest.mark.parametrize("command", [["ledger", "check"], ["ledger", "events"]])
def test_a_typo_in_the_session_id_is_an_error_not_an_empty_pass(
    runner: CliRunner, ledger_url: str, command: list[str]
) -> None:
    """`ledger check nosuch` used to say "0 events, every event folds" and exit 0."""
    result = runner.invoke(main, [*command, "nosuch", "--ledger", ledger_url])
    assert result.exit_code == ExitCode.ERROR, result.output
    assert "holds no session 'nosuch'" in result.stderr
    assert "every event folds" not in result.stdout
