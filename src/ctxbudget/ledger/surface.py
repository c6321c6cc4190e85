"""The log rules that need the session's state: the surface, the open step, sources.

``SessionState`` is what the rules need between appends (revision and open step);
stores keep it in a row of its own, updated in the append's transaction. The
surface lives in the store as ``(seq, pos, kind)`` entries whose ``pos`` keys keep
surface order: an append takes ``pos = seq``, a replace takes over the ``pos`` of
the first entry it hides. So no rule ever needs the whole session, only the
entries and events a batch names.

``SessionPlanner.admit`` is a generator: it yields the reads it needs (``Positions``,
``Span``, ``ReadEvents``) and the store's driver sends back the answers. That keeps
one planner for the sync and the async stores.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, TypeAlias

from ctxbudget.errors import CorruptEventError, InvalidEventError
from ctxbudget.ledger.events import Event, ReplaceOp
from ctxbudget.ledger.rules import NewEvent, parse_event
from ctxbudget.ledger.shapes import is_integer
from ctxbudget.ledger.vocabulary import (
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    STEP_END,
    STEP_START,
    SURFACE_TYPES,
    TOOL_RESULT,
)

__all__ = [
    "OpenStep",
    "Positions",
    "Query",
    "ReadEvents",
    "SessionPlanner",
    "SessionState",
    "Span",
    "SpanError",
    "SurfaceEntry",
    "resolve_span",
]


class SpanError(ValueError):
    """A replace range that is not a span of the current surface."""


def resolve_span(position_of: Callable[[int], int | None], op: ReplaceOp) -> tuple[int, int]:
    """The positions of ``op.start`` and ``op.end`` on the surface, first <= last.

    The one replace rule, used by the ledger (on ``pos`` keys) and the meter's fold
    (on list indexes): both ends must be on the surface now, start no later than end.
    """
    first, last = position_of(op.start), position_of(op.end)
    if first is None or last is None:
        raise SpanError(f"replace range {op.start}-{op.end} is not on the current surface")
    if first > last:
        raise SpanError(
            f"replace range {op.start}-{op.end} is reversed: {op.start} comes after "
            f"{op.end} on the surface"
        )
    return first, last


class SurfaceEntry(NamedTuple):
    """One model-visible event on the surface; ``pos`` orders the surface.

    A named tuple rather than a dataclass: one is built per appended surface event
    and per stored row read, and tuples build several times faster.
    """

    seq: int
    pos: int
    kind: str


@dataclass(frozen=True, slots=True)
class OpenStep:
    """A ``step/start`` without its ``step/end``; ``indexes``: chunk block indexes seen."""

    turn: int
    step: int
    indexes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class SessionState:
    """What the append rules carry from one append to the next."""

    revision: int = 0
    step: OpenStep | None = None

    def to_json(self) -> str:
        """The stored form (the state row's ``state`` column)."""
        step = self.step
        if step is None:
            return "null"
        return json.dumps({"turn": step.turn, "step": step.step, "indexes": step.indexes})

    @classmethod
    def from_json(cls, revision: int, text: str) -> SessionState:
        """From a state row; ``ValueError`` if it was damaged."""
        raw = json.loads(text)
        if raw is None:
            return cls(revision)
        if not isinstance(raw, dict) or not all(is_integer(raw.get(k)) for k in ("turn", "step")):
            raise ValueError(f"session state {text!r:.80} is not a step object")
        indexes = raw.get("indexes", [])
        if not isinstance(indexes, list) or not all(is_integer(i) for i in indexes):
            raise ValueError(f"session state {text!r:.80} has bad chunk indexes")
        return cls(revision, OpenStep(raw["turn"], raw["step"], tuple(indexes)))


@dataclass(frozen=True, slots=True)
class Positions:
    """Read: the surface entries of these seqs (absent ones are not on the surface)."""

    seqs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """Read: the surface entries with ``first <= pos <= last``, in ``pos`` order."""

    first: int
    last: int


@dataclass(frozen=True, slots=True)
class ReadEvents:
    """Read: the stored events with these seqs."""

    seqs: tuple[int, ...]


Query: TypeAlias = Positions | Span | ReadEvents
Planning: TypeAlias = Generator[Any, Any, Any]


@dataclass(slots=True)
class _Overlay:
    """Surface changes of the batch being planned, over what the store holds."""

    base: int
    added: dict[int, SurfaceEntry] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)

    def positions(self, seqs: Iterable[int]) -> Generator[Query, Any, dict[int, SurfaceEntry]]:
        wanted = set(seqs)
        found = {s: self.added[s] for s in wanted if s in self.added}
        stored = sorted(s for s in wanted if s < self.base and s not in self.removed)
        if stored:
            answer: Mapping[int, SurfaceEntry] = yield Positions(tuple(stored))
            found.update((s, e) for s, e in answer.items() if s in wanted)
        return found

    def span(self, first: int, last: int) -> Generator[Query, Any, list[SurfaceEntry]]:
        stored: list[SurfaceEntry] = yield Span(first, last)
        entries = [e for e in stored if e.seq not in self.removed and e.seq not in self.added]
        entries += [e for e in self.added.values() if first <= e.pos <= last]
        return sorted(entries, key=lambda e: e.pos)


class SessionPlanner:
    """Checks events one by one against the session's state and applies them.

    ``admit`` checks a new event; ``replay`` folds one that is already stored (a
    catch-up after writes this library did not make). Afterwards ``state`` and
    ``surface_changes()`` are what the store writes in the same transaction.
    """

    def __init__(self, session_id: str, state: SessionState) -> None:
        self.session_id = session_id
        # Plain fields, not a new SessionState per event: appends are the hot path.
        self._revision, self._step = state.revision, state.step
        self._overlay = _Overlay(state.revision)
        self._events: dict[int, Event] = {}
        # The span the replace just checked hides; _apply of that same event consumes it.
        self._pending_span: list[SurfaceEntry] = []

    @property
    def state(self) -> SessionState:
        """The state after every event admitted or replayed so far."""
        return SessionState(self._revision, self._step)

    def stored_form(self, new: NewEvent, now: int) -> Event:
        """``new`` as the event it would be stored as next (not checked yet)."""
        return Event(
            self.session_id,
            self._revision,
            now,
            new.type,
            new.data,
            new.surface_op,
            new.source_seqs,
        )

    @staticmethod
    def needs_reads(event: Event) -> bool:
        """Whether checking ``event`` reads the store (a replace, or cited chunks)."""
        return isinstance(event.surface_op, ReplaceOp) or (
            event.type == ASSISTANT_MESSAGE.type and event.data.get("usage") is not None
        )

    def admit_plain(self, event: Event) -> None:
        """Check and apply an event that ``needs_reads`` says reads nothing."""
        self._check_local(event)
        self._apply(event)

    def admit(self, event: Event) -> Generator[Query, Any, None]:
        """Check ``event`` (yielding the reads it needs), then apply it."""
        yield from self._check(event)
        self._apply(event)

    def replay(self, event: Event) -> Generator[Query, Any, None]:
        """Fold a stored event in; ``CorruptEventError`` if it breaks the rules."""
        if event.seq != self._revision:
            raise CorruptEventError(
                self.session_id, self._revision, f"the log jumps to seq {event.seq}"
            )
        try:
            parse_event(event.to_new(), max_bytes=2**62)
            yield from self._check(event)
        except InvalidEventError as exc:
            raise CorruptEventError(self.session_id, event.seq, str(exc)) from None
        self._apply(event)

    def surface_changes(self) -> tuple[tuple[int, ...], tuple[SurfaceEntry, ...]]:
        """Seqs to delete from the stored surface and entries to insert."""
        overlay = self._overlay
        gone = tuple(sorted(s for s in overlay.removed if s < overlay.base))
        added = tuple(e for s, e in sorted(overlay.added.items()) if s not in overlay.removed)
        return gone, added

    # -- checks ------------------------------------------------------------------------------

    def _check_local(self, event: Event) -> None:
        _check_surface_op(event)
        _check_sources(event)
        self._check_step(event)

    def _check(self, event: Event) -> Planning:
        self._check_local(event)
        if event.type == ASSISTANT_MESSAGE.type and event.data.get("usage") is not None:
            yield from self._check_chunk_sources(event)
        if isinstance(event.surface_op, ReplaceOp):
            yield from self._check_replace(event, event.surface_op)

    def _check_step(self, event: Event) -> None:
        kind, data, step = event.type, event.data, self._step
        if kind == STEP_START.type and step is not None:
            raise InvalidEventError(
                f"step/start at seq {event.seq} arrives while turn {step.turn}/step {step.step} "
                'is open; end it first with step/end (add "aborted": true if it crashed)',
                "step-open",
            )
        if kind == STEP_END.type and not _matches(step, data):
            if step is None and data.get("aborted") is True:
                return  # recovery is idempotent: no step is open, nothing to close
            raise InvalidEventError(
                f"step/end at seq {event.seq} for turn {data['turn']}/step {data['step']} "
                f"has no matching open step ({_open(step)})",
                "step-end",
            )
        if kind == ASSISTANT_MESSAGE.type and not _matches(step, data):
            raise InvalidEventError(
                f"assistant/message at seq {event.seq} for turn {data['turn']}/step "
                f"{data['step']} is outside its step ({_open(step)}); append step/start with "
                "the same turn and step before it",
                "assistant-step",
            )
        if kind == ASSISTANT_CHUNK.type and step is not None and _matches(step, data):
            _check_chunk_order(event, step)

    def _check_chunk_sources(self, event: Event) -> Planning:
        sources = event.source_seqs or ()
        found = yield from self._events_at(sources)
        for source in sources:
            cited = found.get(source)
            if (
                cited is None
                or cited.type != ASSISTANT_CHUNK.type
                or not _same_step(cited.data, event.data)
            ):
                raise InvalidEventError(
                    f"assistant/message at seq {event.seq} reports usage, so its source_seqs "
                    f"must cite assistant/chunk events of its own turn and step; seq {source} "
                    "is not one (cite the step's chunks, or omit source_seqs)",
                    "assistant-sources",
                )

    def _check_replace(self, event: Event, op: ReplaceOp) -> Planning:
        overlay = self._overlay
        at = yield from overlay.positions((op.start, op.end))
        try:
            first, last = resolve_span(lambda s: at[s].pos if s in at else None, op)
        except SpanError as exc:
            raise InvalidEventError(f"{event.type} {exc}", "replace-range") from None
        shadowed = yield from overlay.span(first, last)
        missing = sorted({e.seq for e in shadowed} - set(event.source_seqs or ()))
        if missing:
            raise InvalidEventError(
                f"{event.type} replaces seqs {[e.seq for e in shadowed]} but its source_seqs "
                f"do not list {missing}; list every seq it hides",
                "replace-sources",
            )
        if event.type == TOOL_RESULT.type:
            yield from self._check_tool_result_replace(event, shadowed)
        self._pending_span = shadowed

    def _check_tool_result_replace(self, event: Event, shadowed: list[SurfaceEntry]) -> Planning:
        if len(shadowed) != 1 or shadowed[0].kind != TOOL_RESULT.type:
            raise InvalidEventError(
                "a tool/result replacement must shadow exactly one tool/result, "
                f"not the span {[e.seq for e in shadowed]}",
                "tool-result-replace",
            )
        found = yield from self._events_at((shadowed[0].seq,))
        old = found[shadowed[0].seq].data
        if _without_content(old) != _without_content(event.data):
            raise InvalidEventError(
                f"a tool/result replacement may change only content; it differs from seq "
                f"{shadowed[0].seq} in other fields",
                "tool-result-replace",
            )

    def _events_at(self, seqs: Iterable[int]) -> Generator[Query, Any, dict[int, Event]]:
        wanted = set(seqs)
        found = {s: self._events[s] for s in wanted if s in self._events}
        stored = tuple(sorted(s for s in wanted - set(found) if s < self._overlay.base))
        if stored:
            answer: Mapping[int, Event] = yield ReadEvents(stored)
            found.update(answer)
        return found

    # -- applying ----------------------------------------------------------------------------

    def _apply(self, event: Event) -> None:
        seq, overlay, op = event.seq, self._overlay, event.surface_op
        if op == "append":
            overlay.added[seq] = SurfaceEntry(seq, seq, event.type)
        elif isinstance(op, ReplaceOp):
            shadowed = self._pending_span
            overlay.removed.update(e.seq for e in shadowed)
            for entry in shadowed:
                overlay.added.pop(entry.seq, None)
            overlay.added[seq] = SurfaceEntry(seq, shadowed[0].pos, event.type)
        self._events[seq] = event
        self._revision = seq + 1
        if self._step is not None or event.type == STEP_START.type:
            self._step = _next_step(self._step, event)


def _next_step(step: OpenStep | None, event: Event) -> OpenStep | None:
    kind, data = event.type, event.data
    if kind == STEP_START.type:
        return OpenStep(data["turn"], data["step"])
    if kind == STEP_END.type:
        return None
    if kind == ASSISTANT_CHUNK.type and step is not None and _matches(step, data):
        index = data["chunk"].get("index")
        if is_integer(index) and index not in step.indexes:
            return replace(step, indexes=(*step.indexes, index))
    return step


def _check_chunk_order(event: Event, step: OpenStep) -> None:
    index = event.data["chunk"].get("index")
    if is_integer(index) and index not in step.indexes and index < max(step.indexes, default=-1):
        raise InvalidEventError(
            f"assistant/chunk at seq {event.seq} opens block index {index} after index "
            f"{max(step.indexes)}; blocks open in index order (send each block's chunks "
            "under its own, increasing index)",
            "chunk-order",
        )


def _check_surface_op(event: Event) -> None:
    kind = event.type
    if kind in SURFACE_TYPES:
        if event.surface_op is None:
            raise InvalidEventError(
                f"{kind} is model-visible and must carry surface_op "
                "('append' or a replace of the current surface)",
                "surface-op",
            )
    elif event.surface_op is not None or event.source_seqs is not None:
        raise InvalidEventError(
            f"{kind} is not model-visible and must carry neither surface_op nor source_seqs",
            "surface-op",
        )


def _check_sources(event: Event) -> None:
    sources = event.source_seqs
    if sources is None:
        return
    if not sources and event.type != ASSISTANT_MESSAGE.type:
        raise InvalidEventError(
            f"{event.type} source_seqs may be empty only on assistant/message; "
            "omit the field when the sources are unknown",
            "source-seqs",
        )
    late = [s for s in sources if s >= event.seq]
    if late:
        raise InvalidEventError(
            f"{event.type} at seq {event.seq} cites source seq {late[0]}, which is not earlier",
            "source-seqs",
        )


def _matches(step: OpenStep | None, data: Mapping[str, Any]) -> bool:
    return step is not None and (step.turn, step.step) == (data.get("turn"), data.get("step"))


def _same_step(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return (a.get("turn"), a.get("step")) == (b.get("turn"), b.get("step"))


def _open(step: OpenStep | None) -> str:
    return "no step is open" if step is None else f"turn {step.turn}/step {step.step} is open"


def _without_content(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != "content"}
