"""The SQLite store: the default, one file per ledger (``sqlite:///PATH``).

WAL journal with ``synchronous=FULL``: a commit that returned is on disk, and a
process killed mid-batch leaves no trace of the batch. Writers take SQLite's
write lock with ``BEGIN IMMEDIATE``, so processes sharing the file queue up
instead of failing; ``(session_id, seq)`` is the primary key all the same.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from ctxbudget.errors import StoreError, StoreUnavailableError
from ctxbudget.ledger.base import (
    Clock,
    LedgerShell,
    TrackerCache,
    check_expected,
    epoch_ms,
    prepare_batch,
)
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.rows import decode_rows, encode_rows
from ctxbudget.ledger.rules import MAX_EVENT_BYTES
from ctxbudget.ledger.surface import plan_append

__all__ = ["DEFAULT_SQLITE_PATH", "SQLiteLedger"]

DEFAULT_SQLITE_PATH: Final = Path(".ctxbudget") / "ledger.sqlite3"
"""Where ``open_ledger()`` keeps the log when no URL is given (relative to the cwd)."""

BUSY_TIMEOUT_S: Final = 30.0
"""How long a writer waits for another process's write lock before giving up."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS ctxbudget_events (
    session_id  TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    time        INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    data        TEXT    NOT NULL,
    surface_op  TEXT,
    source_seqs TEXT,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID
"""
_COLUMNS: Final = "seq, time, type, data, surface_op, source_seqs"
_INSERT: Final = "INSERT INTO ctxbudget_events VALUES (?, ?, ?, ?, ?, ?, ?)"
_REVISION: Final = "SELECT COALESCE(MAX(seq) + 1, 0) FROM ctxbudget_events WHERE session_id = ?"
_SELECT: Final = (
    f"SELECT {_COLUMNS} FROM ctxbudget_events WHERE session_id = ? AND seq >= ? AND seq < ? "
    "ORDER BY seq"
)


class SQLiteLedger(LedgerShell):
    """A ledger in one SQLite file; safe to share between threads and processes."""

    def __init__(
        self,
        path: str | os.PathLike[str] = DEFAULT_SQLITE_PATH,
        *,
        clock: Clock = epoch_ms,
        max_event_bytes: int = MAX_EVENT_BYTES,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._trackers = TrackerCache()
        self._lock = threading.Lock()
        self._conn = _connect(self.path)

    def __repr__(self) -> str:
        return f"SQLiteLedger({str(self.path)!r})"

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        """Append a batch in one durable transaction; the seqs assigned."""
        session_id, batch = prepare_batch(
            session_id, events, expected_revision, self._max_event_bytes
        )
        with self._lock:
            with self._write_transaction(session_id) as conn:
                (revision,) = conn.execute(_REVISION, (session_id,)).fetchone()
                check_expected(session_id, expected_revision, revision)
                tracker = self._trackers.at(
                    session_id, revision, lambda a, b: self._read(session_id, a, b)
                )
                stored = plan_append(
                    session_id,
                    tracker,
                    batch,
                    self._clock(),
                    lambda s: self._read(session_id, s, s + 1)[0],
                )
                conn.executemany(_INSERT, encode_rows(stored, batch))
            self._trackers.advance(session_id, tracker, stored)
        return [e.seq for e in stored]

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        with self._lock:
            return self._read(session_id, start, stop)

    def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        with self._lock, _store_errors():
            return int(self._conn.execute(_REVISION, (session_id,)).fetchone()[0])

    def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        # Sorted here, by code point: SQL collations differ between servers.
        query = "SELECT DISTINCT session_id FROM ctxbudget_events"
        with self._lock, _store_errors():
            return sorted(row[0] for row in self._conn.execute(query))

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()

    def _read(self, session_id: str, start: int, stop: int | None = None) -> list[Event]:
        start = max(start, 0)
        upper = 2**63 - 1 if stop is None else stop
        with _store_errors():
            rows = self._conn.execute(_SELECT, (session_id, start, upper)).fetchall()
        return list(decode_rows(session_id, start, rows))

    @contextmanager
    def _write_transaction(self, session_id: str) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        with _store_errors():
            conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            with _store_errors():
                conn.execute("COMMIT")
        except BaseException:
            self._trackers.forget(session_id)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _connect(path: Path) -> sqlite3.Connection:
    try:
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
    except (OSError, sqlite3.Error) as exc:
        raise StoreUnavailableError(f"cannot open the SQLite ledger at {path}: {exc}") from exc
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute(_SCHEMA)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreUnavailableError(
            f"cannot use {path} as a SQLite ledger ({exc}); is it a SQLite database?"
        ) from exc
    return conn


@contextmanager
def _store_errors() -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise StoreUnavailableError(f"the SQLite ledger is unavailable: {exc}") from exc
    except sqlite3.Error as exc:
        raise StoreError(f"the SQLite ledger failed: {exc}") from exc
