"""The append recipe, written once for every store (memory, SQLite, PostgreSQL, async).

A store opens a write transaction on one session and answers the recipe's
queries (``SessionStore``); the recipe decides everything else: the revision
check, catching the state up after writes this library did not make, the rules,
and what to commit. The recipe is a generator that yields queries, so the sync
and the async stores drive the very same code (``run_recipe``,
``run_recipe_async``).

Cost: a batch reads the revision, the state row, and only the surface entries and
events it names (replace ends, cited chunks); never the whole session.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, TypeVar

from ctxbudget.errors import ConflictError, CorruptEventError
from ctxbudget.ledger.events import Event
from ctxbudget.ledger.rules import NewEvent
from ctxbudget.ledger.surface import (
    Positions,
    Query,
    ReadEvents,
    SessionPlanner,
    SessionState,
    Span,
    SurfaceEntry,
)

__all__ = [
    "AsyncSessionStore",
    "Commit",
    "LoadState",
    "ReadRange",
    "Revision",
    "SessionStore",
    "append_recipe",
    "check_expected",
    "run_recipe",
    "run_recipe_async",
]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Revision:
    """Read: the number of events in the session's log (``MAX(seq) + 1``)."""


@dataclass(frozen=True, slots=True)
class LoadState:
    """Read: the session's state row, ``None`` if it has none yet."""


@dataclass(frozen=True, slots=True)
class ReadRange:
    """Read: stored events ``start`` up to ``stop`` (to catch the state up)."""

    start: int
    stop: int


@dataclass(frozen=True, slots=True)
class Commit:
    """Write, in the same transaction: new events, surface changes and the new state."""

    stored: tuple[Event, ...]
    batch: tuple[NewEvent, ...]
    surface_deleted: tuple[int, ...]
    surface_added: tuple[SurfaceEntry, ...]
    state: SessionState


StoreQuery: TypeAlias = Query | Revision | LoadState | ReadRange | Commit
Recipe: TypeAlias = Generator[StoreQuery, Any, _T]


class SessionStore(Protocol):
    """One session inside one write transaction of a sync store."""

    def revision(self) -> int: ...

    def load_state(self) -> SessionState | None: ...

    def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]: ...

    def span(self, first: int, last: int) -> Sequence[SurfaceEntry]: ...

    def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]: ...

    def read_range(self, start: int, stop: int) -> Sequence[Event]: ...

    def commit(self, commit: Commit) -> None: ...


class AsyncSessionStore(Protocol):
    """The async twin of ``SessionStore``."""

    async def revision(self) -> int: ...

    async def load_state(self) -> SessionState | None: ...

    async def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]: ...

    async def span(self, first: int, last: int) -> Sequence[SurfaceEntry]: ...

    async def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]: ...

    async def read_range(self, start: int, stop: int) -> Sequence[Event]: ...

    async def commit(self, commit: Commit) -> None: ...


def check_expected(session_id: str, expected: int | None, actual: int) -> None:
    """``ConflictError`` unless the session is at the revision the writer expects."""
    if expected is not None and expected != actual:
        raise ConflictError(session_id, expected, actual)


def append_recipe(
    session_id: str, batch: Sequence[NewEvent], expected_revision: int | None, now: int
) -> Recipe[list[Event]]:
    """Check and plan one batch; yields queries, returns the stored events."""
    revision: int = yield Revision()
    check_expected(session_id, expected_revision, revision)
    state: SessionState | None = yield LoadState()
    planner = yield from _caught_up(session_id, state, revision)
    stored: list[Event] = []
    for new in batch:
        event = planner.stored_form(new, now)
        if planner.needs_reads(event):
            yield from planner.admit(event)
        else:
            planner.admit_plain(event)  # no generator per plain append: the hot path
        stored.append(event)
    if stored or planner.state != state:
        deleted, added = planner.surface_changes()
        yield Commit(tuple(stored), tuple(batch), deleted, added, planner.state)
    return stored


def _caught_up(
    session_id: str, state: SessionState | None, revision: int
) -> Recipe[SessionPlanner]:
    # No state row: a new session, or one logged before the state row existed (read once).
    start = state or SessionState()
    if start.revision > revision:
        raise CorruptEventError(
            session_id, revision, f"the session state is at {start.revision}: events were deleted"
        )
    planner = SessionPlanner(session_id, start)
    if start.revision < revision:
        events: Sequence[Event] = yield ReadRange(start.revision, revision)
        for event in events:
            yield from planner.replay(event)
        if planner.state.revision != revision:
            raise CorruptEventError(session_id, planner.state.revision, "the row is missing")
    return planner


def _answer(store: SessionStore | AsyncSessionStore, query: StoreQuery) -> Any:
    """The store's answer (an awaitable from an async store)."""
    match query:
        case Revision():
            return store.revision()
        case LoadState():
            return store.load_state()
        case Positions(seqs):
            return store.positions(seqs)
        case Span(first, last):
            return store.span(first, last)
        case ReadEvents(seqs):
            return store.read_events(seqs)
        case ReadRange(start, stop):
            return store.read_range(start, stop)
        case Commit():
            return store.commit(query)
    raise TypeError(f"unknown store query {query!r}")  # pragma: no cover


def run_recipe(recipe: Recipe[_T], store: SessionStore) -> _T:
    """Drive ``recipe`` against a sync store; its result."""
    try:
        query = next(recipe)
        while True:
            query = recipe.send(_answer(store, query))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def run_recipe_async(recipe: Recipe[_T], store: AsyncSessionStore) -> _T:
    """Drive ``recipe`` against an async store; its result."""
    try:
        query = next(recipe)
        while True:
            query = recipe.send(await _answer(store, query))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
