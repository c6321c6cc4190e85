"""The region transaction: replace one span of the surface by its summary, or nothing.

In order (docs/compaction.md):

1. measure; check the span (on the surface, in order, tool-pair safe, passes the
   kernel's plan guards, large enough for a summary to save tokens). Nothing is
   appended if it fails.
2. ``compaction/start``, appended at exactly the measured revision: the durable
   lock. Losing that race is a ``CompactionConflictError`` with nothing appended.
   From here on every failure appends ``compaction/end`` with the error.
3. measure again; the span must still be there, node for node.
4. the kernel's ``apply`` with adapters: the originals go to the archive first, then
   the summarizer is asked for a summary smaller than the span.
5. measure again: the span must still be on the surface (optimistic concurrency:
   the commit is appended at exactly the revision this check saw).
6. the framed summary must cost fewer tokens than the span.
7. ``compaction/summary``, the replacing ``user/message`` and ``compaction/end`` in
   one ledger transaction.

A ``compaction/start`` without its end (a killed process) is inert: the lock is a
record, not a gate, and the commit check alone decides who lands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxbudget.archives import Original
from ctxbudget.compaction.outcomes import Compacted, CompactionRange, Trigger
from ctxbudget.compaction.selection import (
    MIN_SUMMARY_TOKENS,
    SurfaceView,
    region_plan,
    summary_room,
)
from ctxbudget.compaction.steps import (
    AppendEvents,
    ArchiveAndSummarize,
    Context,
    Measure,
    ReadEvents,
    Steps,
)
from ctxbudget.content import Message, blocks_to_json
from ctxbudget.errors import (
    CompactionConflictError,
    CompactionRangeError,
    ConflictError,
    CtxBudgetError,
    SummarizerError,
    SummaryNotSmallerError,
)
from ctxbudget.kernel import ApplyResult, Item, Plan, net_removed_tokens
from ctxbudget.ledger import Event
from ctxbudget.meter import Measurement, Node
from ctxbudget.summaries import SummaryRequest, frame_checkpoint

__all__ = ["COMMIT_ATTEMPTS", "compact_region_steps", "error_text", "surface_view_steps"]

COMMIT_ATTEMPTS: Final = 3
"""Commits tried when other events land meanwhile (the span itself intact)."""


def surface_view_steps(measurement: Measurement) -> Steps:
    """Read what ``measurement``'s surface is made of; returns (view, events read)."""
    start = min((node.seq for node in measurement.nodes), default=measurement.log_revision)
    events: Sequence[Event] = yield ReadEvents(start, measurement.log_revision)
    view = SurfaceView.of(measurement, {event.seq: event for event in events})
    return view, events


def compact_region_steps(
    ctx: Context,
    session_id: str,
    start_seq: int,
    end_seq: int,
    trigger: Trigger,
    seen: tuple[Measurement, SurfaceView] | None = None,
) -> Steps:
    """Compact ``start_seq``..``end_seq`` of the surface; returns ``Compacted``.

    ``seen``: a measurement and its view just taken by the caller, to save a read (the
    lock is appended at that measurement's revision, so a stale one only conflicts).
    """
    if seen is None:
        measured: Measurement = yield Measure()
        view, _ = yield from surface_view_steps(measured)
    else:
        measured, view = seen
    span, plan = region_plan(view, start_seq, end_seq)
    budget = _summary_budget(ctx, span)
    compaction_id = ctx.new_id()
    lock = _event(
        "compaction/start",
        compaction_id=compaction_id,
        trigger=trigger,
        start_seq=span.start_seq,
        end_seq=span.end_seq,
        revision=measured.log_revision,
    )
    try:
        (lock_seq,) = yield AppendEvents((lock,), measured.log_revision)
    except ConflictError as lost:
        raise CompactionConflictError(
            session_id, f"the log moved on past revision {measured.log_revision} before the lock"
        ) from lost
    try:
        locked = _Locked(ctx, session_id, compaction_id, trigger, lock_seq, span, plan, budget)
        return (yield from locked.run(view, measured.total_tokens))
    except Exception as failure:
        end = _event("compaction/end", compaction_id=compaction_id, error=error_text(failure))
        try:
            yield AppendEvents((end,), None)
        except Exception as unlogged:
            failure.add_note(f"(compaction/end could not be logged either: {unlogged})")
        raise


def _summary_budget(ctx: Context, span: CompactionRange) -> int:
    """Tokens the summary may take: the configured cap, and always less than the span
    minus its framing, so a summary that keeps to its budget is a saving."""
    room = summary_room(span.tokens, ctx.framing_tokens)
    if room < MIN_SUMMARY_TOKENS:
        raise CompactionRangeError(
            f"the span {span.start_seq}-{span.end_seq} takes {span.tokens} tokens and its "
            f"checkpoint framing {ctx.framing_tokens}: too small for a summary to save "
            "anything; compact a longer span"
        )
    return min(ctx.config.summary_max_tokens, room)


def error_text(failure: BaseException) -> str:
    """What ``compaction/end`` records: ``<code>: <message>`` (code first, so a reader
    can tell why without parsing prose)."""
    code = failure.code if isinstance(failure, CtxBudgetError) else type(failure).__name__
    return f"{code}: {failure}"


class _Locked:
    """Steps 3-7, once the lock is in the log."""

    def __init__(
        self,
        ctx: Context,
        session_id: str,
        compaction_id: str,
        trigger: Trigger,
        lock_seq: int,
        span: CompactionRange,
        plan: Plan,
        budget: int,
    ) -> None:
        self.ctx, self.session_id, self.compaction_id = ctx, session_id, compaction_id
        self.trigger, self.lock_seq, self.span, self.plan = trigger, lock_seq, span, plan
        self.budget = budget

    def run(self, view: SurfaceView, total_before: int) -> Steps:
        locked: Measurement = yield Measure()
        shadowed = _span_nodes(locked.nodes, self.span.seqs)
        if shadowed is None:
            raise CompactionConflictError(self.session_id, "the span changed before summarizing")
        shadowed_tokens = sum(node.tokens for node in shadowed)
        applied: ApplyResult = yield self._archive_and_summarize(view, locked.nodes)
        text = applied.summary.text.strip()
        if not text:
            raise SummarizerError("empty", "the summarizer returned no text")
        framed = frame_checkpoint(text, applied.locator)
        summary_tokens = self.ctx.price(Message("user", framed))
        for _ in range(COMMIT_ATTEMPTS):
            current: Measurement = yield Measure()
            if _span_nodes(current.nodes, self.span.seqs) is None:
                raise CompactionConflictError(
                    self.session_id, "the span left the surface while it was being summarized"
                )
            if summary_tokens >= shadowed_tokens:
                raise SummaryNotSmallerError(summary_tokens, shadowed_tokens)
            batch = self._commit(text, framed, applied.locator, shadowed_tokens, current)
            try:
                seqs = yield AppendEvents(batch, current.log_revision)
            except ConflictError:
                continue
            after: Measurement = yield Measure()
            return Compacted(
                compaction_id=self.compaction_id,
                trigger=self.trigger,
                start_seq=self.span.start_seq,
                end_seq=self.span.end_seq,
                shadowed_seqs=self.span.seqs,
                shadowed_tokens=shadowed_tokens,
                summary=text,
                summary_tokens=summary_tokens,
                net_removed_tokens=net_removed_tokens(shadowed_tokens, summary_tokens),
                locator=applied.locator,
                lock_seq=self.lock_seq,
                summary_seq=seqs[0],
                message_seq=seqs[1],
                total_tokens_before=total_before,
                total_tokens_after=after.total_tokens,
            )
        raise CompactionConflictError(
            self.session_id, f"other writers kept appending through {COMMIT_ATTEMPTS} commits"
        )

    def _archive_and_summarize(
        self, view: SurfaceView, nodes: Sequence[Node]
    ) -> ArchiveAndSummarize:
        first = view.position(self.span.start_seq)
        assert first is not None  # checked by region_plan on this view
        count = len(self.span.seqs)
        messages = view.messages[first : first + count]
        start = next(i for i, node in enumerate(nodes) if node.seq == self.span.start_seq)
        items = tuple(Item(str(node.seq), node.tokens) for node in nodes[start:])
        return ArchiveAndSummarize(
            self.plan,
            items[:count],
            items[count:],
            Original("turns", messages, self.session_id, self.span.seqs),
            SummaryRequest(messages, self.budget),
        )

    def _commit(
        self,
        text: str,
        framed: Any,
        locator: str,
        shadowed_tokens: int,
        current: Measurement,
    ) -> tuple[Mapping[str, Any], ...]:
        summary_seq = current.log_revision
        summary = _event(
            "compaction/summary",
            compaction_id=self.compaction_id,
            summary=text,
            shadowed_seqs=list(self.span.seqs),
            shadowed_tokens=shadowed_tokens,
            locator=locator,
            max_tokens=self.budget,
            **self.ctx.summarizer_labels,
        )
        message = {
            "type": "user/message",
            "data": {
                "content": blocks_to_json(framed),
                "source": {"kind": "compaction", "compaction_id": self.compaction_id},
            },
            "surface_op": {"op": "replace", "start": self.span.start_seq, "end": self.span.end_seq},
            "source_seqs": [self.lock_seq, summary_seq, *self.span.seqs],
        }
        end = _event("compaction/end", compaction_id=self.compaction_id)
        return summary, message, end


def _span_nodes(nodes: Sequence[Node], seqs: Sequence[int]) -> Sequence[Node] | None:
    """The nodes of ``seqs`` if they still sit together, in order, on ``nodes``."""
    for index, node in enumerate(nodes):
        if node.seq == seqs[0]:
            found = nodes[index : index + len(seqs)]
            return found if [n.seq for n in found] == list(seqs) else None
    return None


def _event(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}
