"""Compaction plans: which leading items to summarize, which tail to keep verbatim.

A plan is pure arithmetic over item counts; it holds no content and does no I/O.
Its three guards refuse compactions that would look like work but do none:
"succeeded, changed nothing" is worse than an error, because the context stays
over its limit while the host believes it was handled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ctxbudget.errors import CutoffTooLowError, TooFewItemsError, TooFewToSummarizeError

__all__ = [
    "FORCE_KEEP_ITEMS",
    "MIN_EFFECTIVE_ITEMS",
    "MIN_SUMMARIZE_ITEMS",
    "Plan",
    "PlanInput",
    "build_plan",
]

FORCE_KEEP_ITEMS: Final = 6
"""The design baseline of the kept tail; the first guard's threshold derives from it."""
MIN_SUMMARIZE_ITEMS: Final = 2
"""A summary earns its place by generalising across items; one item only gets retold."""
MIN_EFFECTIVE_ITEMS: Final = FORCE_KEEP_ITEMS + MIN_SUMMARIZE_ITEMS
"""Fewest items worth compacting.

Tied to the keep baseline, not to the caller's ``keep_tail``: a threshold that
followed ``keep_tail`` could be lowered by shrinking the tail (three items
"compacted" into one summary), and would make the two later guards unreachable.
"""


@dataclass(frozen=True, slots=True)
class PlanInput:
    """What a plan is built from.

    ``items``: addressable items in the conversation (a message, or a tool round trip).
    ``keep_tail``: items kept verbatim at the end; negative means no tail.
    ``item_tokens``: estimated tokens per item, for the removed estimate; <= 0: no estimate.
    """

    items: int
    keep_tail: int
    item_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Plan:
    """Items ``[0, cutoff)`` go into the summary, ``[cutoff, items)`` stay verbatim.

    ``gross_removed_tokens`` is what leaves *before* the summary is added back; the
    net figure is ``net_removed_tokens(gross, summary_tokens)``. The name says gross
    on purpose: the reference's similarly named figure is net, and mixing the two
    up silently overstates the savings by one summary.
    """

    items: int
    cutoff: int
    summarize_items: int
    keep_tail_items: int
    gross_removed_tokens: int


def build_plan(plan_input: PlanInput) -> Plan:
    """Plan a compaction, or raise the reason it would be a no-op.

    The guards are checked in this order, each on its own:

    1. ``TooFewItemsError``: fewer than ``MIN_EFFECTIVE_ITEMS`` items.
    2. ``CutoffTooLowError``: the kept tail leaves nothing (cutoff <= 0).
    3. ``TooFewToSummarizeError``: fewer than ``MIN_SUMMARIZE_ITEMS`` to summarize.

    They share one symptom and need three different remedies (wait a turn, keep a
    shorter tail, stop compacting this session), hence three errors, not a bool.
    """
    items = plan_input.items
    keep = max(plan_input.keep_tail, 0)
    if items < MIN_EFFECTIVE_ITEMS:
        raise TooFewItemsError(items, MIN_EFFECTIVE_ITEMS)
    cutoff = items - keep
    if cutoff <= 0:
        raise CutoffTooLowError(items, keep)
    if cutoff < MIN_SUMMARIZE_ITEMS:
        raise TooFewToSummarizeError(cutoff, MIN_SUMMARIZE_ITEMS)
    gross = cutoff * plan_input.item_tokens if plan_input.item_tokens > 0 else 0
    return Plan(
        items=items,
        cutoff=cutoff,
        summarize_items=cutoff,
        keep_tail_items=keep,
        gross_removed_tokens=gross,
    )
