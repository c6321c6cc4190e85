"""The PostgreSQL store, for many workers (``postgresql://…``; extra ``postgres``).

Each batch is one transaction. Two writers that read the same revision both try
to insert the same ``(session_id, seq)`` primary key; PostgreSQL lets exactly one
commit and the other gets a unique violation, which becomes ``ConflictError``
(or a re-read and retry when the caller gave no ``expected_revision``).
``PostgresLedger`` and ``AsyncPostgresLedger`` share the statements and the
rules; only the awaiting differs.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self

from ctxbudget.errors import (
    ConflictError,
    MissingExtraError,
    StoreError,
    StoreUnavailableError,
)
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
from ctxbudget.ledger.rules import MAX_EVENT_BYTES, NewEvent
from ctxbudget.ledger.surface import plan_append

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

__all__ = ["DEFAULT_TABLE", "AsyncPostgresLedger", "PostgresLedger"]

DEFAULT_TABLE: Final = "ctxbudget_events"
AUTO_SEQ_ATTEMPTS: Final = 100
"""Retries of a write without ``expected_revision`` that keeps losing the race."""
_SCHEMA_LOCK: Final = 0x63_74_78_62  # one advisory lock id, so concurrent creators queue


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtraError(
            feature="the PostgreSQL ledger", extra="postgres", module="psycopg"
        ) from exc
    return psycopg


@dataclass(frozen=True, slots=True)
class _Statements:
    """The SQL for one table; identifiers quoted by psycopg, values always parameters."""

    create: list[sql.Composed]
    revision: sql.Composed
    select: sql.Composed
    insert: sql.Composed
    sessions: sql.Composed

    @classmethod
    def for_table(cls, schema: str | None, table: str) -> _Statements:
        from psycopg import sql

        name = sql.Identifier(schema, table) if schema else sql.Identifier(table)
        create = [
            sql.SQL("SELECT pg_advisory_xact_lock({})").format(sql.Literal(_SCHEMA_LOCK)),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (session_id text NOT NULL, seq bigint NOT NULL, "
                "time bigint NOT NULL, type text NOT NULL, data text NOT NULL, "
                "surface_op text, source_seqs text, PRIMARY KEY (session_id, seq))"
            ).format(name),
        ]
        if schema:
            create.insert(
                1, sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))
            )
        return cls(
            create=create,
            revision=sql.SQL(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM {} WHERE session_id = %s"
            ).format(name),
            select=sql.SQL(
                "SELECT seq, time, type, data, surface_op, source_seqs FROM {} "
                "WHERE session_id = %s AND seq >= %s AND seq < %s ORDER BY seq"
            ).format(name),
            insert=sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s, %s)").format(name),
            sessions=sql.SQL("SELECT DISTINCT session_id FROM {}").format(name),
        )


def _upper(stop: int | None) -> int:
    return 2**63 - 1 if stop is None else stop


@contextmanager
def _store_errors(url: str) -> Iterator[None]:
    psycopg = _psycopg()
    try:
        yield
    except psycopg.errors.UniqueViolation:
        raise
    except psycopg.OperationalError as exc:
        raise StoreUnavailableError(
            f"the PostgreSQL ledger at {url} is unavailable: {exc}"
        ) from exc
    except psycopg.Error as exc:
        raise StoreError(f"the PostgreSQL ledger at {url} failed: {exc}") from exc


def _redacted(conninfo: str) -> str:
    """The URL without its password, for error messages."""
    head, at, tail = conninfo.rpartition("@")
    if not at or "://" not in head:
        return conninfo
    scheme, _, userinfo = head.partition("://")
    return f"{scheme}://{userinfo.split(':')[0]}@{tail}"


class PostgresLedger(LedgerShell):
    """A ledger in one PostgreSQL table; one connection, safe to share between threads."""

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str | None = None,
        table: str = DEFAULT_TABLE,
        clock: Clock = epoch_ms,
        max_event_bytes: int = MAX_EVENT_BYTES,
        connect_timeout: int = 10,
    ) -> None:
        psycopg = _psycopg()
        self._url = _redacted(conninfo)
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._sql = _Statements.for_table(schema, table)
        self._trackers = TrackerCache()
        self._lock = threading.Lock()
        with _store_errors(self._url):
            self._conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=connect_timeout)
        try:
            with _store_errors(self._url), self._conn.transaction():
                for statement in self._sql.create:
                    self._conn.execute(statement)
        except BaseException:
            self._conn.close()
            raise

    def __repr__(self) -> str:
        return f"PostgresLedger({self._url!r})"

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        """Append a batch in one transaction; the seqs assigned."""
        session_id, batch = prepare_batch(
            session_id, events, expected_revision, self._max_event_bytes
        )
        unique_violation = _psycopg().errors.UniqueViolation
        for _ in range(AUTO_SEQ_ATTEMPTS):
            try:
                with self._lock:
                    return self._write(session_id, batch, expected_revision)
            except unique_violation:
                self._trackers.forget(session_id)
                if expected_revision is not None:
                    raise ConflictError(
                        session_id, expected_revision, self.revision(session_id)
                    ) from None
        raise _lost_race(session_id)

    def _write(
        self, session_id: str, batch: list[NewEvent], expected_revision: int | None
    ) -> list[int]:
        conn = self._conn
        with _store_errors(self._url), conn.transaction():
            (revision,) = conn.execute(self._sql.revision, (session_id,)).fetchone()
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
            with conn.cursor() as cursor:
                cursor.executemany(self._sql.insert, encode_rows(stored, batch))
        self._trackers.advance(session_id, tracker, stored)
        return [e.seq for e in stored]

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        with self._lock:
            return self._read(session_id, start, stop)

    def _read(self, session_id: str, start: int, stop: int | None = None) -> list[Event]:
        start = max(start, 0)
        with _store_errors(self._url):
            rows = self._conn.execute(
                self._sql.select, (session_id, start, _upper(stop))
            ).fetchall()
        return list(decode_rows(session_id, start, rows))

    def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        with self._lock, _store_errors(self._url):
            return int(self._conn.execute(self._sql.revision, (session_id,)).fetchone()[0])

    def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        with self._lock, _store_errors(self._url):
            return sorted(row[0] for row in self._conn.execute(self._sql.sessions))

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()


class AsyncPostgresLedger:
    """The async twin of ``PostgresLedger`` over ``psycopg.AsyncConnection``.

    Build it with ``await AsyncPostgresLedger.connect(url)`` (or ``open_async_ledger``).
    """

    def __init__(
        self,
        conn: psycopg.AsyncConnection[Any],
        statements: _Statements,
        url: str,
        *,
        clock: Clock,
        max_event_bytes: int,
    ) -> None:
        import asyncio

        self._conn = conn
        self._sql = statements
        self._url = url
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._trackers = TrackerCache()
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(
        cls,
        conninfo: str,
        *,
        schema: str | None = None,
        table: str = DEFAULT_TABLE,
        clock: Clock = epoch_ms,
        max_event_bytes: int = MAX_EVENT_BYTES,
        connect_timeout: int = 10,
    ) -> AsyncPostgresLedger:
        """Connect and create the table if needed."""
        psycopg = _psycopg()
        url = _redacted(conninfo)
        statements = _Statements.for_table(schema, table)
        with _store_errors(url):
            conn = await psycopg.AsyncConnection.connect(
                conninfo, autocommit=True, connect_timeout=connect_timeout
            )
        try:
            with _store_errors(url):
                async with conn.transaction():
                    for statement in statements.create:
                        await conn.execute(statement)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, statements, url, clock=clock, max_event_bytes=max_event_bytes)

    def __repr__(self) -> str:
        return f"AsyncPostgresLedger({self._url!r})"

    async def append(
        self, session_id: str, event: AppendableEvent, expected_revision: int | None = None
    ) -> int:
        """Append one event; its seq."""
        return (await self.append_many(session_id, [event], expected_revision))[0]

    async def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        """Append a batch in one transaction; the seqs assigned."""
        session_id, batch = prepare_batch(
            session_id, events, expected_revision, self._max_event_bytes
        )
        unique_violation = _psycopg().errors.UniqueViolation
        for _ in range(AUTO_SEQ_ATTEMPTS):
            try:
                async with self._lock:
                    return await self._write(session_id, batch, expected_revision)
            except unique_violation:
                self._trackers.forget(session_id)
                if expected_revision is not None:
                    actual = await self.revision(session_id)
                    raise ConflictError(session_id, expected_revision, actual) from None
        raise _lost_race(session_id)

    async def _write(
        self, session_id: str, batch: list[NewEvent], expected_revision: int | None
    ) -> list[int]:
        conn = self._conn
        with _store_errors(self._url):
            async with conn.transaction():
                cursor = await conn.execute(self._sql.revision, (session_id,))
                (revision,) = await cursor.fetchone()  # type: ignore[misc]
                check_expected(session_id, expected_revision, revision)
                tracker = self._trackers.get(session_id, revision)
                for event in await self._read(session_id, tracker.revision, revision):
                    tracker.replay(event)
                replaced = [
                    op.start
                    for op in (e.surface_op for e in batch)
                    if not isinstance(op, str | None)
                ]
                known = {e.seq: e for s in replaced for e in await self._read(session_id, s, s + 1)}
                stored = plan_append(session_id, tracker, batch, self._clock(), known.__getitem__)
                async with conn.cursor() as cursor:
                    await cursor.executemany(self._sql.insert, encode_rows(stored, batch))
        self._trackers.advance(session_id, tracker, stored)
        return [e.seq for e in stored]

    async def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        async with self._lock:
            return await self._read(session_id, start, stop)

    async def _read(self, session_id: str, start: int, stop: int | None = None) -> list[Event]:
        start = max(start, 0)
        with _store_errors(self._url):
            cursor = await self._conn.execute(self._sql.select, (session_id, start, _upper(stop)))
            rows = await cursor.fetchall()
        return list(decode_rows(session_id, start, rows))

    async def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        async with self._lock:
            with _store_errors(self._url):
                cursor = await self._conn.execute(self._sql.revision, (session_id,))
                row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        async with self._lock:
            with _store_errors(self._url):
                cursor = await self._conn.execute(self._sql.sessions)
                rows = await cursor.fetchall()
        return sorted(row[0] for row in rows)

    async def aclose(self) -> None:
        """Close the connection."""
        await self._conn.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _lost_race(session_id: str) -> StoreError:
    """What both twins raise when other writers keep taking the next seq."""
    return StoreError(
        f"session {session_id!r}: lost the race for the next seq {AUTO_SEQ_ATTEMPTS} times; "
        "too many writers on one session, pass expected_revision and back off"
    )
