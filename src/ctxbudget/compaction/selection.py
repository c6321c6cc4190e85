"""Which span to compact: pure decisions over one measurement of the surface.

The span is head-anchored (it starts at the oldest node, so an earlier checkpoint
is merged into the next one), keeps a verbatim tail of at least the retained
tokens, and is cut only where the library's one tool-pair rule allows
(``ctxbudget.content.pairing``): never between a call and its result. The
kernel's plan guards (``build_plan``) then decide whether the span is worth a
summary at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from ctxbudget.archives import event_message
from ctxbudget.compaction.outcomes import CompactionRange, StallReason
from ctxbudget.content import Message
from ctxbudget.content.pairing import safe_cut_points
from ctxbudget.errors import CompactionRangeError, PlanRefusedError, SummaryNotSmallerError
from ctxbudget.kernel import Plan, PlanInput, build_plan
from ctxbudget.ledger import Event
from ctxbudget.meter import Measurement, Node

__all__ = [
    "MIN_SUMMARY_TOKENS",
    "SurfaceView",
    "choose_range",
    "region_plan",
    "summary_room",
    "unshrinkable_spans",
]

MIN_SUMMARY_TOKENS: Final = 32
"""Room a summary needs to say anything; a span that leaves less after the framing
is too small to compact (the summary could not be smaller than the span)."""


@dataclass(frozen=True, slots=True)
class SurfaceView:
    """The surface as one measurement saw it: nodes, their messages, safe cuts."""

    nodes: tuple[Node, ...]
    messages: tuple[Message, ...]
    safe_cuts: frozenset[int]
    revision: int
    total_tokens: int

    @classmethod
    def of(cls, measurement: Measurement, events: Mapping[int, Event]) -> SurfaceView:
        """The view of ``measurement``; ``events`` holds at least every node's event."""
        nodes = tuple(measurement.nodes)
        messages = tuple(event_message(events[node.seq]) for node in nodes)
        return cls(
            nodes,
            messages,
            frozenset(safe_cut_points(messages)),
            measurement.log_revision,
            measurement.total_tokens,
        )

    def position(self, seq: int) -> int | None:
        """Where ``seq`` sits on the surface, or ``None``."""
        for index, node in enumerate(self.nodes):
            if node.seq == seq:
                return index
        return None

    def span(self, first: int, last: int) -> CompactionRange:
        """The range over positions ``first``..``last`` (inclusive)."""
        nodes = self.nodes[first : last + 1]
        return CompactionRange(
            nodes[0].seq,
            nodes[-1].seq,
            tuple(n.seq for n in nodes),
            sum(n.tokens for n in nodes),
            self.revision,
        )


def region_plan(view: SurfaceView, start_seq: int, end_seq: int) -> tuple[CompactionRange, Plan]:
    """The range ``start_seq``..``end_seq`` and its kernel plan, or ``CompactionRangeError``
    / ``PlanRefusedError`` saying why it cannot be compacted as given."""
    first, last = view.position(start_seq), view.position(end_seq)
    if first is None:
        raise CompactionRangeError(f"start seq {start_seq} is not on the current surface")
    if last is None:
        raise CompactionRangeError(f"end seq {end_seq} is not on the current surface")
    if first > last:
        raise CompactionRangeError(
            f"start seq {start_seq} (position {first}) comes after end seq {end_seq} "
            f"(position {last}) on the surface"
        )
    if first not in view.safe_cuts:
        raise CompactionRangeError(
            f"start seq {start_seq} is not a safe boundary: it would split a tool call "
            "from its result"
        )
    if last + 1 not in view.safe_cuts:
        raise CompactionRangeError(
            f"end seq {end_seq} is not a safe boundary: a tool call in the span has its "
            "result after it (or none yet)"
        )
    items = len(view.nodes) - first
    plan = build_plan(PlanInput(items=items, keep_tail=len(view.nodes) - last - 1))
    return view.span(first, last), plan


def choose_range(
    view: SurfaceView,
    retain_tokens: int,
    framing_tokens: int,
    skip: Iterable[tuple[int, int]] = (),
) -> CompactionRange | tuple[StallReason, str]:
    """The head-anchored span keeping ``retain_tokens`` of tail, or why there is none.

    If that span is in ``skip`` (spans a summarizer could not shrink before), the
    tail is halved, then dropped to the last safe node, so a wider span is tried;
    a span in ``skip`` is never chosen again.
    """
    skipped = set(skip)
    reason: tuple[StallReason, str] | None = None
    for retain in dict.fromkeys((retain_tokens, retain_tokens // 2, 0)):
        found = _head_span(view, retain, framing_tokens)
        if not isinstance(found, CompactionRange):
            return reason or found
        edges = (found.start_seq, found.end_seq)
        if edges not in skipped:
            return found
        reason = (
            "summary_not_smaller",
            f"the span {edges[0]}-{edges[1]} could not be summarized smaller before",
        )
    assert reason is not None
    return reason


def _head_span(
    view: SurfaceView, retain: int, framing_tokens: int
) -> CompactionRange | tuple[StallReason, str]:
    nodes = view.nodes
    if not nodes:
        return "nothing_to_compact", "the surface is empty"
    keep_from, kept = len(nodes), 0
    while keep_from > 0:
        keep_from -= 1
        kept += nodes[keep_from].tokens
        if kept >= retain:
            break
    # Round the cut toward the head: more is kept, no tool pair is split.
    cut = max((c for c in view.safe_cuts if c <= keep_from), default=0)
    try:
        build_plan(PlanInput(items=len(nodes), keep_tail=len(nodes) - cut))
    except PlanRefusedError as refused:
        return "nothing_to_compact", str(refused)
    found = view.span(0, cut - 1)
    if summary_room(found.tokens, framing_tokens) < MIN_SUMMARY_TOKENS:
        return (
            "span_too_small",
            f"the span {found.start_seq}-{found.end_seq} takes {found.tokens} tokens; its "
            f"checkpoint framing alone takes {framing_tokens}",
        )
    return found


def summary_room(span_tokens: int, framing_tokens: int) -> int:
    """The most tokens a summary of a span may take and still save something: the
    span's price less the checkpoint framing, less one (a summary as costly as what it
    replaces is refused). Range selection and the region transaction both ask this."""
    return span_tokens - framing_tokens - 1


def unshrinkable_spans(events: Sequence[Event]) -> set[tuple[int, int]]:
    """Spans whose compaction ended because the summary was not smaller (from the log)."""
    started: dict[str, tuple[int, int]] = {}
    failed: set[tuple[int, int]] = set()
    for event in events:
        data = event.data
        if event.type == "compaction/start":
            start, end = data.get("start_seq"), data.get("end_seq")
            if isinstance(start, int) and isinstance(end, int):
                started[str(data.get("compaction_id"))] = (start, end)
        elif event.type == "compaction/end":
            error = data.get("error")
            edges = started.get(str(data.get("compaction_id")))
            if edges and isinstance(error, str) and error.startswith(SummaryNotSmallerError.code):
                failed.add(edges)
    return failed
