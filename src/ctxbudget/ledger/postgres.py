"""The PostgreSQL store, for many workers (``postgresql://…``; extra ``postgres``).

Each batch is one transaction that first takes a transaction-scoped advisory lock
on its session, so writers of one session queue up instead of racing for the next
seq (no retry loop, no append fails for lack of retries) while writers of
different sessions run in parallel. The append rules read only the session's
state row and the entries a batch names (``recipe``). ``(session_id, seq)`` stays
the primary key, so a writer that bypasses the lock still cannot overwrite
anything: it gets ``ConflictError``. ``PostgresLedger`` and
``AsyncPostgresLedger`` share the statements and the recipe; only the awaiting
differs. A password in the URL or DSN never appears in an error message.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final, Self
from urllib.parse import quote, urlsplit

from ctxbudget.errors import (
    ConfigError,
    ConflictError,
    CtxBudgetError,
    LedgerError,
    MissingExtraError,
    StoreError,
    StoreUnavailableError,
)
from ctxbudget.ledger.base import Clock, LedgerShell, epoch_ms, prepare_batch, read_bounds
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.recipe import Commit, append_recipe, run_recipe, run_recipe_async
from ctxbudget.ledger.rows import decode_row, decode_rows, decode_state, encode_rows
from ctxbudget.ledger.rules import MAX_EVENT_BYTES, NewEvent
from ctxbudget.ledger.surface import SessionState, SurfaceEntry

if TYPE_CHECKING:
    import psycopg
    from psycopg import sql

__all__ = ["DEFAULT_TABLE", "AsyncPostgresLedger", "PostgresLedger"]

DEFAULT_TABLE: Final = "ctxbudget_events"
_SCHEMA_LOCK: Final = 0x63_74_78_62  # one advisory lock id, so concurrent creators queue
_SECRET_KEYS: Final = ("password", "sslpassword")


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtraError(
            feature="the PostgreSQL ledger", extra="postgres", module="psycopg"
        ) from exc
    return psycopg


@dataclass(frozen=True, slots=True)
class _Target:
    """Where the store connects, as shown in messages: never with its secrets."""

    display: str
    secrets: tuple[str, ...]

    @classmethod
    def parse(cls, conninfo: str) -> _Target:
        from psycopg.conninfo import conninfo_to_dict

        try:
            params = conninfo_to_dict(conninfo)
        except Exception:  # the driver's message may quote the secret; say nothing of it
            raise ConfigError(
                "the PostgreSQL connection string cannot be parsed; write it as "
                "postgresql://user@host:port/dbname or as key=value pairs"
            ) from None
        secrets = {str(params[k]) for k in _SECRET_KEYS if params.get(k)}
        if "://" in conninfo and urlsplit(conninfo).password:
            secrets.add(str(urlsplit(conninfo).password))
        host, port = params.get("host", ""), params.get("port")
        where = f"{host}:{port}" if port else str(host)
        user = f"{params['user']}@" if params.get("user") else ""
        display = f"postgresql://{user}{where}/{params.get('dbname', '')}"
        return cls(display, tuple(sorted(secrets, key=len, reverse=True)))

    def scrub(self, text: str) -> str:
        """``text`` with every secret (plain or URL-quoted) replaced by ``***``."""
        for secret in self.secrets:
            text = text.replace(secret, "***").replace(quote(secret, safe=""), "***")
        return text

    @contextmanager
    def errors(self) -> Iterator[None]:
        """Driver exceptions become the ledger's own, with secrets scrubbed."""
        psycopg = _psycopg()
        try:
            yield
        except (CtxBudgetError, psycopg.errors.UniqueViolation):
            raise
        except psycopg.OperationalError as exc:
            raise StoreUnavailableError(
                self.scrub(f"the PostgreSQL ledger at {self.display} is unavailable: {exc}")
            ) from None
        except (psycopg.Error, OverflowError) as exc:
            raise StoreError(
                self.scrub(f"the PostgreSQL ledger at {self.display} failed: {exc}")
            ) from None


@dataclass(frozen=True, slots=True)
class _Statements:
    """The SQL for one table; identifiers quoted by psycopg, values always parameters."""

    table: str
    create: list[sql.Composed]
    revision: sql.Composed
    select: sql.Composed
    select_seqs: sql.Composed
    sessions: sql.Composed
    state: sql.Composed
    positions: sql.Composed
    span: sql.Composed
    commit: sql.Composed

    @classmethod
    def for_table(cls, schema: str | None, table: str) -> _Statements:
        from psycopg import sql

        def name(suffix: str = "") -> sql.Identifier:
            full = table + suffix
            return sql.Identifier(schema, full) if schema else sql.Identifier(full)

        events, state, surface = name(), name("_sessions"), name("_surface")
        create = [
            sql.SQL("SELECT pg_advisory_xact_lock({})").format(sql.Literal(_SCHEMA_LOCK)),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (session_id text NOT NULL, seq bigint NOT NULL, "
                "time bigint NOT NULL, type text NOT NULL, data text NOT NULL, "
                "surface_op text, source_seqs text, PRIMARY KEY (session_id, seq))"
            ).format(events),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (session_id text PRIMARY KEY, "
                "revision bigint NOT NULL, state text NOT NULL)"
            ).format(state),
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (session_id text NOT NULL, seq bigint NOT NULL, "
                "pos bigint NOT NULL, kind text NOT NULL, PRIMARY KEY (session_id, seq))"
            ).format(surface),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (session_id, pos)").format(
                sql.Identifier(table + "_surface_pos"), surface
            ),
        ]
        if schema:
            create.insert(
                1, sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))
            )
        columns = "seq, time, type, data, surface_op, source_seqs"
        return cls(
            table=f"{schema}.{table}" if schema else table,
            create=create,
            revision=sql.SQL(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM {} WHERE session_id = %s"
            ).format(events),
            select=sql.SQL(
                f"SELECT {columns} FROM {{}} "
                "WHERE session_id = %s AND seq >= %s AND seq < %s ORDER BY seq"
            ).format(events),
            select_seqs=sql.SQL(
                f"SELECT {columns} FROM {{}} WHERE session_id = %s AND seq = ANY(%s)"
            ).format(events),
            sessions=sql.SQL("SELECT DISTINCT session_id FROM {}").format(events),
            state=sql.SQL("SELECT revision, state FROM {} WHERE session_id = %s").format(state),
            positions=sql.SQL(
                "SELECT seq, pos, kind FROM {} WHERE session_id = %s AND seq = ANY(%s)"
            ).format(surface),
            span=sql.SQL(
                "SELECT seq, pos, kind FROM {} WHERE session_id = %s AND pos BETWEEN %s AND %s "
                "ORDER BY pos"
            ).format(surface),
            # One round trip per batch: events, surface changes and state row, as arrays.
            commit=sql.SQL(
                "WITH new_events AS (INSERT INTO {events} SELECT %(sid)s, u.* FROM "
                "unnest(%(seq)s::bigint[], %(time)s::bigint[], %(type)s::text[], "
                "%(data)s::text[], %(op)s::text[], %(sources)s::text[]) AS u), "
                "gone AS (DELETE FROM {surface} WHERE session_id = %(sid)s "
                "AND seq = ANY(%(gone)s::bigint[])), "
                "added AS (INSERT INTO {surface} SELECT %(sid)s, u.* FROM "
                "unnest(%(added_seq)s::bigint[], %(added_pos)s::bigint[], "
                "%(added_kind)s::text[]) AS u) "
                "INSERT INTO {state} VALUES (%(sid)s, %(revision)s, %(state)s) "
                "ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision, "
                "state = excluded.state"
            ).format(events=events, surface=surface, state=state),
        )

    def session_lock(self, session_id: str) -> int:
        """The advisory lock key of one session of this table (a signed 64-bit hash)."""
        digest = hashlib.blake2b(f"{self.table}\0{session_id}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big", signed=True)


_LOCK: Final = "SELECT pg_advisory_xact_lock(%s)"


def _commit_params(session_id: str, commit: Commit) -> dict[str, Any]:
    """The commit statement's parameters: one array per column."""
    rows = encode_rows(commit.stored, commit.batch)
    columns = list(zip(*rows, strict=True)) if rows else [()] * 7
    added = commit.surface_added
    return {
        "sid": session_id,
        "seq": list(columns[1]),
        "time": list(columns[2]),
        "type": list(columns[3]),
        "data": list(columns[4]),
        "op": list(columns[5]),
        "sources": list(columns[6]),
        "gone": list(commit.surface_deleted),
        "added_seq": [e.seq for e in added],
        "added_pos": [e.pos for e in added],
        "added_kind": [e.kind for e in added],
        "revision": commit.state.revision,
        "state": commit.state.to_json(),
    }


class _PostgresSession:
    """One session inside a write transaction (the recipe's ``SessionStore``)."""

    def __init__(self, conn: psycopg.Connection[Any], sql: _Statements, session_id: str) -> None:
        self.conn, self.sql, self.session_id = conn, sql, session_id

    def revision(self) -> int:
        row = self.conn.execute(self.sql.revision, (self.session_id,)).fetchone()
        return int(row[0]) if row else 0

    def load_state(self) -> SessionState | None:
        row = self.conn.execute(self.sql.state, (self.session_id,)).fetchone()
        return None if row is None else decode_state(self.session_id, row)

    def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]:
        rows = self.conn.execute(self.sql.positions, (self.session_id, list(seqs))).fetchall()
        return {row[0]: SurfaceEntry(*row) for row in rows}

    def span(self, first: int, last: int) -> Sequence[SurfaceEntry]:
        rows = self.conn.execute(self.sql.span, (self.session_id, first, last)).fetchall()
        return [SurfaceEntry(*row) for row in rows]

    def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]:
        rows = self.conn.execute(self.sql.select_seqs, (self.session_id, list(seqs))).fetchall()
        return {e.seq: e for e in (decode_row(self.session_id, row) for row in rows)}

    def read_range(self, start: int, stop: int) -> Sequence[Event]:
        rows = self.conn.execute(self.sql.select, (self.session_id, start, stop)).fetchall()
        return list(decode_rows(self.session_id, start, rows))

    def commit(self, commit: Commit) -> None:
        # Binary parameters: text arrays go without per-element quoting.
        self.conn.execute(self.sql.commit, _commit_params(self.session_id, commit), binary=True)


class _AsyncPostgresSession:
    """The async twin of ``_PostgresSession`` (the recipe's ``AsyncSessionStore``)."""

    def __init__(
        self, conn: psycopg.AsyncConnection[Any], sql: _Statements, session_id: str
    ) -> None:
        self.conn, self.sql, self.session_id = conn, sql, session_id

    async def _all(self, statement: sql.Composed, params: tuple[Any, ...]) -> list[Any]:
        cursor = await self.conn.execute(statement, params)
        return await cursor.fetchall()

    async def revision(self) -> int:
        return int((await self._all(self.sql.revision, (self.session_id,)))[0][0])

    async def load_state(self) -> SessionState | None:
        rows = await self._all(self.sql.state, (self.session_id,))
        return decode_state(self.session_id, rows[0]) if rows else None

    async def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]:
        rows = await self._all(self.sql.positions, (self.session_id, list(seqs)))
        return {row[0]: SurfaceEntry(*row) for row in rows}

    async def span(self, first: int, last: int) -> Sequence[SurfaceEntry]:
        rows = await self._all(self.sql.span, (self.session_id, first, last))
        return [SurfaceEntry(*row) for row in rows]

    async def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]:
        rows = await self._all(self.sql.select_seqs, (self.session_id, list(seqs)))
        return {e.seq: e for e in (decode_row(self.session_id, row) for row in rows)}

    async def read_range(self, start: int, stop: int) -> Sequence[Event]:
        rows = await self._all(self.sql.select, (self.session_id, start, stop))
        return list(decode_rows(self.session_id, start, rows))

    async def commit(self, commit: Commit) -> None:
        params = _commit_params(self.session_id, commit)
        await self.conn.execute(self.sql.commit, params, binary=True)


def _conflict(session_id: str, expected: int | None, actual: int) -> LedgerError:
    """A writer that bypassed the session lock took the seq first; nothing was written."""
    if expected is not None:
        return ConflictError(session_id, expected, actual)
    return StoreError(
        f"session {session_id!r}: another writer that does not take the session lock "
        "appended at the same seq; nothing was written: retry the append"
    )


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
        self._target = _Target.parse(conninfo)
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._sql = _Statements.for_table(schema, table)
        self._lock = threading.Lock()
        with self._target.errors():
            self._conn = psycopg.connect(conninfo, autocommit=True, connect_timeout=connect_timeout)
        try:
            with self._target.errors(), self._conn.transaction():
                for statement in self._sql.create:
                    self._conn.execute(statement)
        except BaseException:
            self._conn.close()
            raise

    def __repr__(self) -> str:
        return f"PostgresLedger({self._target.display!r})"

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
        try:
            with self._lock:
                return self._write(session_id, batch, expected_revision)
        except _psycopg().errors.UniqueViolation:
            raise _conflict(session_id, expected_revision, self.revision(session_id)) from None

    def _write(
        self, session_id: str, batch: list[NewEvent], expected_revision: int | None
    ) -> list[int]:
        conn = self._conn
        recipe = append_recipe(session_id, batch, expected_revision, self._clock())
        with self._target.errors(), conn.transaction():
            conn.execute(_LOCK, (self._sql.session_lock(session_id),))
            stored = run_recipe(recipe, _PostgresSession(conn, self._sql, session_id))
        return [e.seq for e in stored]

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        low, high = read_bounds(start, stop)
        with self._lock, self._target.errors():
            rows = self._conn.execute(self._sql.select, (session_id, low, high)).fetchall()
            return list(decode_rows(session_id, low, rows))

    def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        with self._lock, self._target.errors():
            return int(self._conn.execute(self._sql.revision, (session_id,)).fetchone()[0])

    def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        with self._lock, self._target.errors():
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
        target: _Target,
        *,
        clock: Clock,
        max_event_bytes: int,
    ) -> None:
        import asyncio

        self._conn = conn
        self._sql = statements
        self._target = target
        self._clock = clock
        self._max_event_bytes = max_event_bytes
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
        target = _Target.parse(conninfo)
        statements = _Statements.for_table(schema, table)
        with target.errors():
            conn = await psycopg.AsyncConnection.connect(
                conninfo, autocommit=True, connect_timeout=connect_timeout
            )
        try:
            with target.errors():
                async with conn.transaction():
                    for statement in statements.create:
                        await conn.execute(statement)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, statements, target, clock=clock, max_event_bytes=max_event_bytes)

    def __repr__(self) -> str:
        return f"AsyncPostgresLedger({self._target.display!r})"

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
        conn = self._conn
        recipe = append_recipe(session_id, batch, expected_revision, self._clock())
        try:
            async with self._lock:
                with self._target.errors():
                    async with conn.transaction():
                        await conn.execute(_LOCK, (self._sql.session_lock(session_id),))
                        store = _AsyncPostgresSession(conn, self._sql, session_id)
                        stored = await run_recipe_async(recipe, store)
        except _psycopg().errors.UniqueViolation:
            actual = await self.revision(session_id)
            raise _conflict(session_id, expected_revision, actual) from None
        return [e.seq for e in stored]

    async def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        low, high = read_bounds(start, stop)
        async with self._lock:
            with self._target.errors():
                cursor = await self._conn.execute(self._sql.select, (session_id, low, high))
                rows = await cursor.fetchall()
        return list(decode_rows(session_id, low, rows))

    async def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        async with self._lock:
            with self._target.errors():
                cursor = await self._conn.execute(self._sql.revision, (session_id,))
                row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        async with self._lock:
            with self._target.errors():
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
