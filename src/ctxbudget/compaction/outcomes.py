"""What a compaction returns: the span chosen, a commit, or a typed reason for no work."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

__all__ = [
    "Compacted",
    "CompactionOutcome",
    "CompactionRange",
    "CompactionStalled",
    "NotNeeded",
    "StallReason",
    "Trigger",
]

Trigger: TypeAlias = Literal["pressure", "overflow", "manual"]
"""Why a compaction ran: the threshold was reached, the provider refused an
overflowing request, or someone asked for it."""


@dataclass(frozen=True, slots=True)
class CompactionRange:
    """A span of the surface to replace: positional edges ``start_seq``..``end_seq``.

    ``seqs``: the surface nodes in the span, head to tail; ``tokens``: their price;
    ``revision``: the log revision the span was chosen at.
    """

    start_seq: int
    end_seq: int
    seqs: tuple[int, ...]
    tokens: int
    revision: int


@dataclass(frozen=True, slots=True)
class Compacted:
    """One committed compaction.

    ``lock_seq``, ``summary_seq``, ``message_seq``: the seqs of its
    ``compaction/start``, ``compaction/summary`` and replacing message.
    ``summary_tokens``: the replacing message's price (summary and framing);
    ``net_removed_tokens``: ``shadowed_tokens - summary_tokens``, the drop in the
    span's estimate. ``locator`` finds the originals in the archive.
    ``total_tokens_before`` / ``total_tokens_after``: the meter's totals around it;
    their difference is the drop the meter reports, which differs from
    ``net_removed_tokens`` when the meter scales its estimate by reported usage.
    """

    compaction_id: str
    trigger: Trigger
    start_seq: int
    end_seq: int
    shadowed_seqs: tuple[int, ...]
    shadowed_tokens: int
    summary: str
    summary_tokens: int
    net_removed_tokens: int
    locator: str
    lock_seq: int
    summary_seq: int
    message_seq: int
    total_tokens_before: int
    total_tokens_after: int


@dataclass(frozen=True, slots=True)
class NotNeeded:
    """The session is below the threshold; nothing was done."""

    total_tokens: int
    threshold_tokens: int


StallReason: TypeAlias = Literal[
    "nothing_to_compact", "span_too_small", "summary_not_smaller", "still_above_threshold"
]


@dataclass(frozen=True, slots=True)
class CompactionStalled:
    """Compaction cannot relieve this session now; ``reason`` and ``detail`` say why.

    ``nothing_to_compact``: no span outside the kept tail passes the plan guards.
    ``span_too_small``: every candidate span is too small for a summary to save tokens.
    ``summary_not_smaller``: the summarizer could not shrink any candidate span.
    ``still_above_threshold``: compactions landed (``compactions``) but the total is
    still at or above the threshold after the attempts the config allows.
    """

    reason: StallReason
    detail: str
    total_tokens: int
    threshold_tokens: int
    compactions: tuple[Compacted, ...] = ()


CompactionOutcome: TypeAlias = Compacted | NotNeeded | CompactionStalled
"""What ``compact_if_needed`` returns."""
