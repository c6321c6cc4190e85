"""``ctxbudget demo``: the scripted session lives through its window, offline."""

from __future__ import annotations

from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.demo.script import SCRIPT
from ctxbudget.ledger import open_ledger


def test_demo_shows_every_part_of_the_main_job(runner: CliRunner, ledger_url: str) -> None:
    result = runner.invoke(main, ["demo", "--ledger", ledger_url])
    assert result.exit_code == 0, result.output
    for part in (
        "Pressure, call by call",
        "A request that cannot fit",
        "[budget_exceeded]",
        "as /context shows it",
        "free space",
    ):
        assert part in result.output, part
    calls = sum(len(turn.calls) for turn in SCRIPT)
    assert f"{calls} calls" in result.output


def test_demo_logs_a_new_session_each_run(runner: CliRunner, ledger_url: str) -> None:
    """A second run adds a session; it never rewrites one."""
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    with open_ledger(ledger_url) as store:
        first = store.events("demo-1")
    again = runner.invoke(main, ["demo", "--ledger", ledger_url])
    assert again.exit_code == 0, again.output
    with open_ledger(ledger_url) as store:
        assert store.sessions() == ["demo-1", "demo-2"]
        assert store.events("demo-1") == first


def test_demo_session_can_be_charted_afterwards(runner: CliRunner, ledger_url: str) -> None:
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    result = runner.invoke(
        main, ["session", "history", "demo-1", "--ledger", ledger_url, "--window", "8192"]
    )
    assert result.exit_code == 0, result.output
    assert "anchored calls" in result.output
