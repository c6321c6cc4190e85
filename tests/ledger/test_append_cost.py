"""Appends cost O(batch): no append reads the session's log, however long (no timings)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ctxbudget.errors import ConflictError, CorruptEventError, InvalidEventError
from ctxbudget.ledger import SQLiteLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.testing.ledger import replace_event, step_event, user
from ctxbudget.tokens import Chars4Counter


def statements_of(ledger: SQLiteLedger, action: object) -> list[str]:
    """The SQL statements SQLite ran for ``action()`` (via its trace hook)."""
    seen: list[str] = []
    ledger._conn.set_trace_callback(seen.append)
    try:
        action()  # type: ignore[operator]
    finally:
        ledger._conn.set_trace_callback(None)
    return seen


def reads_of_the_log(statements: list[str]) -> list[str]:
    return [s for s in statements if "FROM ctxbudget_events" in s and "seq >=" in s]


@pytest.mark.parametrize("length", [10, 2_000])
def test_the_first_append_of_a_new_handle_reads_no_log(tmp_path: Path, length: int) -> None:
    """A fresh handle (a new process) appends, replaces and retries after a conflict with
    the same statements on a short and a long session: none reads a range of the log."""
    path = tmp_path / "l.db"
    with SQLiteLedger(path) as ledger:
        ledger.append_many("s", [user(str(n)) for n in range(length)])
    with SQLiteLedger(path) as ledger:
        first = statements_of(ledger, lambda: ledger.append("s", user("next")))
        replace = replace_event(user("sum"), 3, 5, [3, 4, 5])
        replacing = statements_of(ledger, lambda: ledger.append("s", replace))
        with pytest.raises(ConflictError):
            ledger.append("s", user("stale"), expected_revision=1)
        retry = statements_of(ledger, lambda: ledger.append("s", user("retry")))
    for statements in (first, replacing, retry):
        assert reads_of_the_log(statements) == []
        assert len(statements) <= 12


def test_a_log_from_before_the_state_row_is_caught_up_once(tmp_path: Path) -> None:
    """A store written without state rows (an older version, or an outside writer) is
    caught up from the log on the next append, then never again."""
    path = tmp_path / "l.db"
    SQLiteLedger(path).close()
    rows = [
        ("s", 0, 0, "user/message", json.dumps({"content": []}), '"append"', None),
        ("s", 1, 0, "user/message", json.dumps({"content": []}), '"append"', None),
        ("s", 2, 0, "step/start", json.dumps({"turn": 1, "step": 1}), None, None),
    ]
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany("INSERT INTO ctxbudget_events VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()
    with SQLiteLedger(path) as ledger:
        caught_up = statements_of(
            ledger, lambda: ledger.append("s", replace_event(user("x"), 0, 1, [0, 1]))
        )
        assert len(reads_of_the_log(caught_up)) == 1
        with pytest.raises(InvalidEventError, match="step-open"):
            ledger.append("s", step_event("start", 1, 1))  # the caught-up state knows the step
        later = statements_of(ledger, lambda: ledger.append("s", step_event("end", 1, 1)))
        assert reads_of_the_log(later) == []
        assert TokenMeter(ledger, Chars4Counter()).measure("s").log_revision == 5


def test_an_outside_log_that_breaks_the_rules_is_reported_at_append(tmp_path: Path) -> None:
    """Catching up refuses to build on a log the rules reject: CorruptEventError names it."""
    path = tmp_path / "l.db"
    SQLiteLedger(path).close()
    conn = sqlite3.connect(path)
    with conn:
        row = ("s", 0, 0, "step/end", json.dumps({"turn": 1, "step": 1}), None, None)
        conn.execute("INSERT INTO ctxbudget_events VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    conn.close()
    with SQLiteLedger(path) as ledger, pytest.raises(CorruptEventError) as caught:
        ledger.append("s", user("x"))
    assert caught.value.seq == 0
