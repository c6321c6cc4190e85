"""Logs written around the ledger: ReplayError names seq and rule; the check lists them all."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.errors import ReplayError
from ctxbudget.ledger import SQLiteLedger
from ctxbudget.meter import TokenMeter, check_session
from ctxbudget.testing.ledger import step_event, user
from ctxbudget.tokens import Chars4Counter
from tests.meter.script import RawLog, text


def bad_log() -> RawLog:
    log = RawLog()
    log.push("user/message", {"content": text("a")}, "append")
    log.push("step/start", {"turn": 1, "step": 1})
    log.push("step/start", {"turn": 1, "step": 1})  # 2: restarted without ending
    log.push("user/message", {"content": [{"type": "text", "text": 5}]}, "append")  # 3
    log.push("step/end", {"turn": 1, "step": 2})  # 4: another step
    log.push("user/message", {"content": text("b")}, (0, 0), [0])  # 5: fine
    log.push("user/message", {"content": text("c")}, (0, 0), [0])  # 6: 0 is gone
    return log


def test_replay_error_names_seq_and_rule() -> None:
    """measure() stops at the first event it cannot fold, with its seq and rule id."""
    with pytest.raises(ReplayError, match=r"\[rule: step-open\]") as caught:
        TokenMeter(bad_log(), Chars4Counter()).measure("s")
    assert caught.value.seq == 2


def test_the_check_reports_every_event_that_cannot_fold() -> None:
    """check_session skips each bad event and goes on, so all of them are listed."""
    report = check_session(bad_log(), "s")
    assert not report.ok
    assert report.events == 7
    assert [(p.seq, p.rule) for p in report.problems] == [
        (2, "step-open"),
        (3, "field-type"),
        (4, "step-end"),
        (6, "replace-range"),
    ]


def test_a_clean_log_checks_ok(tmp_path: Path) -> None:
    """Everything the ledger accepted folds."""
    with SQLiteLedger(tmp_path / "l.db") as ledger:
        ledger.append_many("s", [user("a"), step_event("start", 1, 1), step_event("end", 1, 1)])
        report = check_session(ledger, "s")
    assert (report.ok, report.events) == (True, 3)


def test_ledger_check_command_reports_and_exits_1(tmp_path: Path) -> None:
    """`ctxbudget ledger check` prints each unfoldable event; exit 1 when there are any."""
    path = tmp_path / "l.db"
    with SQLiteLedger(path) as ledger:
        ledger.append_many("s", [user("a"), step_event("start", 1, 1)])
        ledger.append("clean", user("b"))
    conn = sqlite3.connect(path)
    with conn:  # a writer that bypasses the library appends a second step/start
        row = ("s", 2, 0, "step/start", json.dumps({"turn": 1, "step": 1}), None, None)
        conn.execute("INSERT INTO ctxbudget_events VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    conn.close()
    runner = CliRunner()
    result = runner.invoke(main, ["ledger", "check", "s", "--ledger", f"sqlite:///{path}"])
    assert result.exit_code == 1, result.output
    assert "seq 2\tstep/start\tstep-open" in result.output
    assert "3 events, 1 cannot be folded" in result.output
    clean = runner.invoke(main, ["ledger", "check", "clean", "--ledger", f"sqlite:///{path}"])
    assert clean.exit_code == 0
    assert "every event folds" in clean.output
