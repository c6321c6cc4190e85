"""``ctxbudget session compact``: the compaction engine on a session of the ledger."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.demo.agent import ScriptedAgent, SimulatedProvider
from ctxbudget.demo.script import SCRIPT
from ctxbudget.ledger import open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import get_counter

WINDOW = "8192"


@pytest.fixture
def long_session(ledger_url: str) -> str:
    """The demo's scripted session, logged without compacting: well over 80 % of 8,192."""
    with open_ledger(ledger_url) as store:
        agent = ScriptedAgent(store, "long")
        provider = SimulatedProvider(get_counter("calibrated:cl100k"))
        agent.start()
        for turn in SCRIPT[:3]:
            agent.user_turn(turn.user)
            for call in turn.calls:
                agent.begin_call()
                agent.finish_call(call, provider.usage(agent.body(), call))
        agent.finish()
    return "long"


def _compact(runner: CliRunner, ledger_url: str, *extra: str) -> str:
    args = ["session", "compact", "long", "--ledger", ledger_url, "--window", WINDOW, *extra]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def _total(ledger_url: str) -> int:
    with open_ledger(ledger_url) as store:
        return TokenMeter(store, context_window=int(WINDOW)).measure("long").total_tokens


def test_compact_lowers_the_total_and_keeps_the_originals(
    runner: CliRunner, ledger_url: str, long_session: str
) -> None:
    before = _total(ledger_url)
    out = _compact(runner, ledger_url)
    after = _total(ledger_url)
    assert after < before
    assert f"total {before:,} -> {after:,} tokens" in out
    locator = re.search(r"^originals: (\S+)$", out, re.M)
    assert locator is not None, out
    shown = runner.invoke(
        main, ["archive", locator[1], "--session", long_session, "--ledger", ledger_url]
    )
    assert shown.exit_code == 0, shown.output
    assert SCRIPT[0].user in shown.stdout  # the task, exactly as the user wrote it


def test_if_needed_below_the_threshold_changes_nothing(
    runner: CliRunner, ledger_url: str, long_session: str
) -> None:
    with open_ledger(ledger_url) as store:
        revision = store.revision(long_session)
    out = _compact(runner, ledger_url, "--if-needed", "--threshold", "0.99")
    assert out.startswith("not needed:")
    with open_ledger(ledger_url) as store:
        assert store.revision(long_session) == revision


def test_if_needed_at_the_threshold_compacts(
    runner: CliRunner, ledger_url: str, long_session: str
) -> None:
    out = _compact(runner, ledger_url, "--if-needed")
    assert out.startswith("compacted session 'long' (pressure)")


def test_originals_can_go_to_a_directory(
    runner: CliRunner, ledger_url: str, long_session: str, tmp_path: Path
) -> None:
    archive = tmp_path / "originals"
    out = _compact(runner, ledger_url, "--archive", str(archive))
    locator = re.search(r"^originals: (\S+)$", out, re.M)
    assert locator is not None, out
    assert f"--dir {archive}" in out
    shown = runner.invoke(main, ["archive", locator[1], "--dir", str(archive)])
    assert shown.exit_code == 0, shown.output
    assert SCRIPT[0].user in shown.stdout


def test_a_short_session_has_nothing_to_compact(runner: CliRunner, ledger_url: str) -> None:
    with open_ledger(ledger_url) as store:
        agent = ScriptedAgent(store, "short")
        agent.start()
        agent.user_turn("hello")
    result = runner.invoke(main, ["session", "compact", "short", "--ledger", ledger_url])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("nothing to compact:")


def test_the_total_line_does_not_pass_the_spans_estimate_off_as_the_totals_drop(
    runner: CliRunner, ledger_url: str
) -> None:
    """The drop printed is the totals' own difference; the span's estimate, when it differs
    (the meter scales by the session's usage), is named as what it is."""
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    args = ["session", "compact", "demo-1", "--ledger", ledger_url, "--window", "8192"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    found = re.search(r"total ([\d,]+) -> ([\d,]+) tokens \(([\d,]+) fewer\)", result.stdout)
    assert found is not None, result.stdout
    before, after, fewer = (int(g.replace(",", "")) for g in found.groups())
    assert before - after == fewer
