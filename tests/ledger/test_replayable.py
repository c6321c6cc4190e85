"""What the ledger accepts, the meter can replay: random logs through every store (Hypothesis).

Random sessions mix valid events, each kind of event that once bricked a session
(``BRICKS``), crash-and-restart patterns (a step that never ended, a reopened
handle) and replaces of the current surface. After every accepted append the
session must measure, and a meter that followed along must equal a fresh replay.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxbudget.errors import InvalidEventError
from ctxbudget.ledger import Ledger, MemoryLedger, SQLiteLedger, open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.testing.ledger import (
    BRICKS,
    assistant_message,
    chunk_event,
    header_event,
    step_event,
    tool_result,
    user,
)
from ctxbudget.tokens import Chars4Counter

Opener = Callable[[], Ledger]
TEXT = st.text(alphabet=st.sampled_from("ab c你😀"), max_size=12)
SMALL = st.integers(1, 3)


class Session:
    """One random session: a ledger handle, a meter that follows it, the steps drawn."""

    def __init__(self, opener: Opener, reopens: bool) -> None:
        self.opener, self.reopens = opener, reopens
        self.ledger = opener()
        self.id = uuid.uuid4().hex
        self.meter = TokenMeter(self.ledger, Chars4Counter())

    def surface(self) -> list[int]:
        return [n.seq for n in self.meter.measure(self.id).nodes]

    def attempt(self, batch: list[Any]) -> None:
        before = self.ledger.revision(self.id)
        try:
            self.ledger.append_many(self.id, batch)
        except InvalidEventError:
            assert self.ledger.revision(self.id) == before, "a refused batch left events"
            return
        followed = self.meter.measure(self.id)
        fresh = TokenMeter(self.ledger, Chars4Counter()).measure(self.id)
        assert followed == fresh
        assert fresh.log_revision == before + len(batch)

    def restart(self) -> None:
        """The agent process dies and comes back: a new handle and a new meter."""
        if self.reopens:
            self.ledger.close()
            self.ledger = self.opener()
        self.meter = TokenMeter(self.ledger, Chars4Counter())


def _step(data: st.DataObject, edge: str) -> dict[str, Any]:
    aborted = edge == "end" and data.draw(st.booleans())
    extra = {"aborted": True} if aborted else {}
    return step_event(edge, data.draw(SMALL), data.draw(SMALL), **extra)


def _chunk(data: st.DataObject) -> dict[str, Any]:
    index = data.draw(st.integers(0, 2))
    chunk = data.draw(
        st.sampled_from(
            [
                {"type": "text-delta", "index": index, "text": "t"},
                {"type": "block-end", "index": index, "block": {"type": "text", "text": "b"}},
                {"type": "finish"},
            ]
        )
    )
    return chunk_event(chunk, data.draw(SMALL), data.draw(SMALL))


def _assistant(data: st.DataObject, session: Session) -> dict[str, Any]:
    message = assistant_message(data.draw(TEXT), data.draw(SMALL), data.draw(SMALL))
    if data.draw(st.booleans()):
        usage = {"input_tokens": data.draw(st.integers(0, 500)), "output_tokens": 3}
        message["data"] = {**message["data"], "usage": usage}
    revision = session.ledger.revision(session.id)
    if revision and data.draw(st.booleans()):
        sources = data.draw(st.lists(st.integers(0, revision - 1), max_size=3, unique=True))
        message["source_seqs"] = sources
    return message


def _replace(data: st.DataObject, session: Session) -> dict[str, Any]:
    surface = session.surface()
    if not surface:
        return user("nothing to replace")
    first = data.draw(st.integers(0, len(surface) - 1))
    last = data.draw(st.integers(0, len(surface) - 1))
    span = surface[first : last + 1]
    if data.draw(st.integers(0, 4)) == 0:
        span = span[:-1]  # forget one hidden seq now and then
    kind = data.draw(st.sampled_from(["user", "tool", "assistant"]))
    base = {
        "user": user("summary"),
        "tool": tool_result("c", "pruned"),
        "assistant": assistant_message("summary"),
    }[kind]
    op = {"op": "replace", "start": surface[first], "end": surface[last]}
    return {**base, "surface_op": op, "source_seqs": span}


ACTIONS = ("user", "tool", "start", "end", "chunk", "assistant", "header", "replace")
ACTIONS += ("brick", "restart", "call")


def _action(data: st.DataObject, session: Session) -> list[Any] | None:
    action = data.draw(st.sampled_from(ACTIONS))
    simple: dict[str, Callable[[], Any]] = {
        "user": lambda: user(data.draw(TEXT)),
        "tool": lambda: tool_result("c", data.draw(TEXT)),
        "start": lambda: _step(data, "start"),
        "end": lambda: _step(data, "end"),
        "chunk": lambda: _chunk(data),
        "assistant": lambda: _assistant(data, session),
        "header": lambda: header_event(system=data.draw(st.none() | TEXT)),
        "replace": lambda: _replace(data, session),
        "brick": lambda: data.draw(st.sampled_from(BRICKS))[2],
    }
    if action == "restart":
        session.restart()
        return None
    if action == "call":
        turn, step = data.draw(SMALL), data.draw(SMALL)
        chunk = chunk_event({"type": "text-delta", "index": 0, "text": "hi"}, turn, step)
        opening = [header_event(), step_event("start", turn, step), chunk]
        return [*opening, _assistant(data, session)]
    return [simple[action]()]


def run_session(data: st.DataObject, opener: Opener, reopens: bool) -> None:
    session = Session(opener, reopens)
    try:
        for _ in range(data.draw(st.integers(1, 25))):
            batch = _action(data, session)
            if batch is not None:
                session.attempt(batch)
    finally:
        session.ledger.close()


FAST = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FAST
@given(data=st.data())
def test_memory_accepts_only_replayable_logs(data: st.DataObject) -> None:
    """Memory store: every accepted append leaves a session that measures and replays."""
    shared = MemoryLedger(clock=lambda: 0)
    run_session(data, lambda: shared, reopens=False)


@pytest.fixture
def sqlite_opener(tmp_path: Path) -> Opener:
    path = tmp_path / "l.db"
    return lambda: SQLiteLedger(path, clock=lambda: 0)


@settings(FAST, max_examples=20)
@given(data=st.data())
def test_sqlite_accepts_only_replayable_logs(data: st.DataObject, sqlite_opener: Opener) -> None:
    """SQLite store, with handles reopened (a restart) mid-session."""
    run_session(data, sqlite_opener, reopens=True)


@pytest.mark.postgres
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_postgres_accepts_only_replayable_logs(
    data: st.DataObject, postgres_url: str, postgres_schema: str
) -> None:
    """PostgreSQL store, with handles reopened (a restart) mid-session."""
    run_session(
        data, lambda: open_ledger(postgres_url, schema=postgres_schema, clock=lambda: 0), True
    )
