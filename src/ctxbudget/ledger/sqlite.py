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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final

from ctxbudget.errors import StoreError, StoreUnavailableError
from ctxbudget.ledger.base import Clock, LedgerShell, epoch_ms, prepare_batch, read_bounds
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.recipe import Commit, append_recipe, run_recipe
from ctxbudget.ledger.rows import decode_row, decode_rows, decode_state, encode_rows
from ctxbudget.ledger.rules import MAX_EVENT_BYTES
from ctxbudget.ledger.surface import SessionState, SurfaceEntry

__all__ = ["DEFAULT_SQLITE_PATH", "SQLiteLedger"]

DEFAULT_SQLITE_PATH: Final = Path(".ctxbudget") / "ledger.sqlite3"
"""Where ``open_ledger()`` keeps the log when no URL is given (relative to the cwd)."""

BUSY_TIMEOUT_S: Final = 30.0
"""How long a writer waits for another process's write lock before giving up."""

_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS ctxbudget_events (
        session_id  TEXT    NOT NULL,
        seq         INTEGER NOT NULL,
        time        INTEGER NOT NULL,
        type        TEXT    NOT NULL,
        data        TEXT    NOT NULL,
        surface_op  TEXT,
        source_seqs TEXT,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    # What the append rules carry between appends, so no append re-reads the session.
    """CREATE TABLE IF NOT EXISTS ctxbudget_sessions (
        session_id TEXT    NOT NULL PRIMARY KEY,
        revision   INTEGER NOT NULL,
        state      TEXT    NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS ctxbudget_surface (
        session_id TEXT    NOT NULL,
        seq        INTEGER NOT NULL,
        pos        INTEGER NOT NULL,
        kind       TEXT    NOT NULL,
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS ctxbudget_surface_pos ON ctxbudget_surface (session_id, pos)",
)
_COLUMNS: Final = "seq, time, type, data, surface_op, source_seqs"
_INSERT: Final = "INSERT INTO ctxbudget_events VALUES (?, ?, ?, ?, ?, ?, ?)"
_REVISION: Final = "SELECT COALESCE(MAX(seq) + 1, 0) FROM ctxbudget_events WHERE session_id = ?"
_SELECT: Final = (
    f"SELECT {_COLUMNS} FROM ctxbudget_events WHERE session_id = ? AND seq >= ? AND seq < ? "
    "ORDER BY seq"
)
_STATE: Final = "SELECT revision, state FROM ctxbudget_sessions WHERE session_id = ?"
_SAVE_STATE: Final = (
    "INSERT INTO ctxbudget_sessions VALUES (?, ?, ?) ON CONFLICT (session_id) "
    "DO UPDATE SET revision = excluded.revision, state = excluded.state"
)
_SPAN: Final = (
    "SELECT seq, pos, kind FROM ctxbudget_surface WHERE session_id = ? AND pos BETWEEN ? AND ? "
    "ORDER BY pos"
)
_SURFACE_DELETE: Final = "DELETE FROM ctxbudget_surface WHERE session_id = ? AND seq = ?"
_SURFACE_INSERT: Final = "INSERT INTO ctxbudget_surface VALUES (?, ?, ?, ?)"
_SEQS_PER_QUERY: Final = 500
"""Seqs per ``IN (…)`` list: far below SQLite's limit on bound variables."""


class _SQLiteSession:
    """One session inside a write transaction (the recipe's ``SessionStore``)."""

    def __init__(self, conn: sqlite3.Connection, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    def revision(self) -> int:
        return int(self.conn.execute(_REVISION, (self.session_id,)).fetchone()[0])

    def load_state(self) -> SessionState | None:
        row = self.conn.execute(_STATE, (self.session_id,)).fetchone()
        return None if row is None else decode_state(self.session_id, row)

    def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]:
        columns = "seq, pos, kind FROM ctxbudget_surface"
        return {row[0]: SurfaceEntry(*row) for row in self._rows_at(columns, seqs)}

    def span(self, first: int, last: int) -> Sequence[SurfaceEntry]:
        rows = self.conn.execute(_SPAN, (self.session_id, first, last))
        return [SurfaceEntry(*row) for row in rows]

    def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]:
        rows = self._rows_at(f"{_COLUMNS} FROM ctxbudget_events", seqs)
        return {e.seq: e for e in (decode_row(self.session_id, row) for row in rows)}

    def _rows_at(self, columns: str, seqs: Sequence[int]) -> list[Any]:
        """``SELECT columns`` for these seqs, in slices under SQLite's variable limit."""
        rows: list[Any] = []
        for start in range(0, len(seqs), _SEQS_PER_QUERY):
            part = seqs[start : start + _SEQS_PER_QUERY]
            marks = ", ".join("?" * len(part))
            query = f"SELECT {columns} WHERE session_id = ? AND seq IN ({marks})"
            rows += self.conn.execute(query, (self.session_id, *part)).fetchall()
        return rows

    def read_range(self, start: int, stop: int) -> Sequence[Event]:
        rows = self.conn.execute(_SELECT, (self.session_id, start, stop)).fetchall()
        return list(decode_rows(self.session_id, start, rows))

    def commit(self, commit: Commit) -> None:
        conn, session_id = self.conn, self.session_id
        conn.executemany(_INSERT, encode_rows(commit.stored, commit.batch))
        conn.executemany(_SURFACE_DELETE, [(session_id, s) for s in commit.surface_deleted])
        conn.executemany(
            _SURFACE_INSERT, [(session_id, e.seq, e.pos, e.kind) for e in commit.surface_added]
        )
        state = commit.state
        conn.execute(_SAVE_STATE, (session_id, state.revision, state.to_json()))


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
        recipe = append_recipe(session_id, batch, expected_revision, self._clock())
        with self._lock, self._write_transaction() as conn:
            stored = run_recipe(recipe, _SQLiteSession(conn, session_id))
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
        low, high = read_bounds(start, stop)
        with _store_errors():
            rows = self._conn.execute(_SELECT, (session_id, low, high)).fetchall()
            return list(decode_rows(session_id, low, rows))

    @contextmanager
    def _write_transaction(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        with _store_errors():
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
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
        for statement in _SCHEMA:
            conn.execute(statement)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreUnavailableError(
            f"cannot use {path} as a SQLite ledger ({exc}); is it a SQLite database?"
        ) from exc
    return conn


@contextmanager
def _store_errors() -> Iterator[None]:
    """Driver exceptions become the ledger's own (a corrupt file is a ``StoreError``)."""
    try:
        yield
    except sqlite3.OperationalError as exc:
        raise StoreUnavailableError(f"the SQLite ledger is unavailable: {exc}") from exc
    except (sqlite3.Error, OverflowError) as exc:
        raise StoreError(f"the SQLite ledger failed: {exc}") from exc
