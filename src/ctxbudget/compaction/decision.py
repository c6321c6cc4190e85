"""``compact_if_needed`` as steps: measure once, then a bounded loop of compactions.

The loop is bounded twice: at most ``1 + compaction_retries`` compactions land
(one for an overflow), and at most ``MAX_SHRINK_FAILURES`` summaries that were not
smaller are tolerated, each making the next choice skip that span for good (the
log remembers it: its ``compaction/end`` says ``summary_not_smaller``). When no
span can help, the answer is a ``CompactionStalled`` naming why, never a loop.
"""

from __future__ import annotations

from typing import Final

from ctxbudget.compaction.outcomes import (
    Compacted,
    CompactionOutcome,
    CompactionRange,
    CompactionStalled,
    NotNeeded,
    StallReason,
    Trigger,
)
from ctxbudget.compaction.selection import choose_range, unshrinkable_spans
from ctxbudget.compaction.steps import Context, Measure, Steps
from ctxbudget.compaction.transaction import compact_region_steps, surface_view_steps
from ctxbudget.errors import SummaryNotSmallerError
from ctxbudget.meter import Measurement

__all__ = ["MAX_SHRINK_FAILURES", "compact_if_needed_steps", "select_range_steps"]

MAX_SHRINK_FAILURES: Final = 2
"""Spans a decision may find unshrinkable before it stops (each one is never retried)."""


def select_range_steps(ctx: Context, retain_tokens: int) -> Steps:
    """The span ``compact_if_needed`` would choose now, keeping ``retain_tokens``; or why not."""
    measured: Measurement = yield Measure()
    view, events = yield from surface_view_steps(measured)
    return choose_range(view, retain_tokens, ctx.framing_tokens, unshrinkable_spans(events))


def compact_if_needed_steps(ctx: Context, session_id: str, trigger: Trigger) -> Steps:
    """Compact while the session is at or above the threshold, within the bounds."""
    measured: Measurement = yield Measure()
    threshold = ctx.config.threshold_tokens(ctx.context_window)
    if trigger == "pressure" and measured.total_tokens < threshold:
        return NotNeeded(measured.total_tokens, threshold)
    overflow = trigger == "overflow"
    retain = 0 if overflow else ctx.retain_tokens
    allowed = 1 if overflow else 1 + ctx.config.compaction_retries
    landed: list[Compacted] = []
    failures = 0
    why: tuple[StallReason, str] = ("summary_not_smaller", "no candidate span could be shrunk")
    total, stopped = measured.total_tokens, False
    rounds = 0
    while len(landed) < allowed and failures <= MAX_SHRINK_FAILURES:
        if rounds:  # the first round chooses from the decision's own measurement
            measured = yield Measure()
        rounds += 1
        view, events = yield from surface_view_steps(measured)
        found = choose_range(view, retain, ctx.framing_tokens, unshrinkable_spans(events))
        if not isinstance(found, CompactionRange):
            why, stopped = found, True
            break
        try:
            result = yield from compact_region_steps(
                ctx, session_id, found.start_seq, found.end_seq, trigger, (measured, view)
            )
        except SummaryNotSmallerError:
            failures += 1
            continue
        landed.append(result)
        total = result.total_tokens_after
        if overflow or total < threshold:
            return result
    outcome: CompactionOutcome = _stalled(why, stopped, landed, total, threshold)
    return outcome


def _stalled(
    why: tuple[StallReason, str],
    stopped: bool,
    landed: list[Compacted],
    total: int,
    threshold: int,
) -> CompactionStalled:
    if not landed:
        return CompactionStalled(why[0], why[1], total, threshold)
    detail = (
        f"{len(landed)} compaction(s) landed and the session still takes {total} tokens, "
        f"at or above the threshold of {threshold}"
    )
    if stopped:
        detail += f"; no further span: {why[1]}"
    return CompactionStalled("still_above_threshold", detail, total, threshold, tuple(landed))
