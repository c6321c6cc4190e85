"""The surface as the ledger tracks it, to check replaces and source seqs at append time.

Only a replace needs the current surface; plain appends are checked by their seq
alone, so a batch without replaces never copies it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ctxbudget.errors import CorruptEventError, InvalidEventError
from ctxbudget.ledger.events import SURFACE_TYPES, Event, ReplaceOp, SurfaceOp
from ctxbudget.ledger.rules import NewEvent

__all__ = ["Lookup", "SurfaceTracker", "plan_append"]


Lookup = Callable[[int], Event]
"""Reads one stored event of the session by seq (for the tool/result replace rule)."""


class SurfaceTracker:
    """The current surface (positional seqs) of one session, as of ``revision``."""

    __slots__ = ("kinds", "revision", "seqs")

    def __init__(self) -> None:
        self.revision = 0
        self.seqs: list[int] = []
        self.kinds: dict[int, str] = {}

    @classmethod
    def at_revision(cls, revision: int) -> SurfaceTracker:
        """An empty surface at ``revision``: enough to check a batch of plain appends."""
        tracker = cls()
        tracker.revision = revision
        return tracker

    def copy(self) -> SurfaceTracker:
        """An independent copy, to check a batch without touching this one."""
        other = SurfaceTracker()
        other.revision, other.seqs, other.kinds = self.revision, list(self.seqs), dict(self.kinds)
        return other

    def replay(self, event: Event) -> None:
        """Fold a stored event that was checked when it was appended."""
        if event.seq != self.revision:
            raise CorruptEventError(
                event.session_id, self.revision, f"expected seq {self.revision}, found {event.seq}"
            )
        try:
            self._apply(event.seq, event.type, event.surface_op)
        except ValueError as exc:
            raise CorruptEventError(event.session_id, event.seq, str(exc)) from None

    def check(self, event: NewEvent, lookup: Lookup) -> None:
        """Raise ``InvalidEventError`` if ``event`` may not be appended next."""
        seq, kind = self.revision, event.type
        if kind in SURFACE_TYPES:
            if event.surface_op is None:
                raise InvalidEventError(
                    f"{kind} is model-visible and must carry surface_op "
                    "('append' or a replace of the current surface)"
                )
        elif event.surface_op is not None or event.source_seqs is not None:
            raise InvalidEventError(
                f"{kind} is not model-visible and must carry neither surface_op nor source_seqs"
            )
        self._check_sources(event, seq)
        if isinstance(event.surface_op, ReplaceOp):
            self._check_replace(event, event.surface_op, lookup)

    def apply(self, event: NewEvent) -> None:
        """Fold a checked new event in as the next seq."""
        self._apply(self.revision, event.type, event.surface_op)

    def _apply(self, seq: int, kind: str, op: SurfaceOp | None) -> None:
        if op == "append":
            self.seqs.append(seq)
            self.kinds[seq] = kind
        elif isinstance(op, ReplaceOp):
            first, last = self._span(op)
            for gone in self.seqs[first : last + 1]:
                del self.kinds[gone]
            self.seqs[first : last + 1] = [seq]
            self.kinds[seq] = kind
        self.revision = seq + 1

    def _span(self, op: ReplaceOp) -> tuple[int, int]:
        try:
            first, last = self.seqs.index(op.start), self.seqs.index(op.end)
        except ValueError:
            raise ValueError(
                f"replace range {op.start}-{op.end} is not on the current surface"
            ) from None
        if first > last:
            raise ValueError(
                f"replace range {op.start}-{op.end} is reversed: {op.start} comes after "
                f"{op.end} on the surface"
            )
        return first, last

    def _check_sources(self, event: NewEvent, seq: int) -> None:
        sources = event.source_seqs
        if sources is None:
            return
        if not sources and event.type != "assistant/message":
            raise InvalidEventError(
                f"{event.type} source_seqs may be empty only on assistant/message; "
                "omit the field when the sources are unknown"
            )
        late = [s for s in sources if s >= seq]
        if late:
            raise InvalidEventError(
                f"{event.type} at seq {seq} cites source seq {late[0]}, which is not earlier"
            )

    def _check_replace(self, event: NewEvent, op: ReplaceOp, lookup: Lookup) -> None:
        try:
            first, last = self._span(op)
        except ValueError as exc:
            raise InvalidEventError(f"{event.type} {exc}") from None
        shadowed = self.seqs[first : last + 1]
        missing = sorted(set(shadowed) - set(event.source_seqs or ()))
        if missing:
            raise InvalidEventError(
                f"{event.type} replaces seqs {shadowed} but its source_seqs do not list {missing}"
            )
        if event.type == "tool/result":
            self._check_tool_result_replace(event, shadowed, lookup)

    def _check_tool_result_replace(
        self, event: NewEvent, shadowed: Sequence[int], lookup: Lookup
    ) -> None:
        if len(shadowed) != 1 or self.kinds[shadowed[0]] != "tool/result":
            raise InvalidEventError(
                "a tool/result replacement must shadow exactly one tool/result, "
                f"not the span {list(shadowed)}"
            )
        old = lookup(shadowed[0]).data
        if {k: v for k, v in old.items() if k != "content"} != {
            k: v for k, v in event.data.items() if k != "content"
        }:
            raise InvalidEventError(
                f"a tool/result replacement may change only content; it differs from seq "
                f"{shadowed[0]} in other fields"
            )


def plan_append(
    session_id: str,
    tracker: SurfaceTracker,
    events: Sequence[NewEvent],
    now: int,
    lookup: Lookup,
) -> list[Event]:
    """The stored events for a batch landing at ``tracker.revision``; ``tracker`` is untouched.

    Appends are checked without the surface (their rules depend only on their seq),
    so only a batch that replaces pays for a copy of it.
    """
    replacing = any(isinstance(new.surface_op, ReplaceOp) for new in events)
    work = tracker.copy() if replacing else SurfaceTracker.at_revision(tracker.revision)
    stored: list[Event] = []

    def lookup_in_batch(seq: int) -> Event:
        return stored[seq - tracker.revision] if seq >= tracker.revision else lookup(seq)

    for new in events:
        work.check(new, lookup_in_batch)
        stored.append(
            Event(
                session_id, work.revision, now, new.type, new.data, new.surface_op, new.source_seqs
            )
        )
        work.apply(new)
    return stored
