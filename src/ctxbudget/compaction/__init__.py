"""Compaction over the ledger: automatic, transactional, archive first, pair-safe, convergent.

``Compactor(ledger, meter, summarizer, archive, config)`` (and ``AsyncCompactor``)
replaces the oldest span of a session's surface by a framed summary in one
ledger transaction, after archiving the originals; the replacing message carries
the locator to get them back. ``compact_if_needed`` decides, bounded, and answers
``Compacted``, ``NotNeeded`` or ``CompactionStalled`` (never a loop). See
docs/compaction.md.
"""

from ctxbudget.compaction.compactor import (
    ArchiveChoice,
    AsyncArchiveChoice,
    AsyncCompactor,
    Compactor,
)
from ctxbudget.compaction.config import DEFAULT_RETAIN_RATIO, CompactionConfig
from ctxbudget.compaction.decision import MAX_SHRINK_FAILURES
from ctxbudget.compaction.outcomes import (
    Compacted,
    CompactionOutcome,
    CompactionRange,
    CompactionStalled,
    NotNeeded,
    StallReason,
    Trigger,
)
from ctxbudget.compaction.selection import MIN_SUMMARY_TOKENS
from ctxbudget.compaction.transaction import COMMIT_ATTEMPTS
from ctxbudget.errors import (
    CompactionConflictError,
    CompactionFailedError,
    CompactionRangeError,
    SummarizerError,
    SummaryNotSmallerError,
)

__all__ = [
    "COMMIT_ATTEMPTS",
    "DEFAULT_RETAIN_RATIO",
    "MAX_SHRINK_FAILURES",
    "MIN_SUMMARY_TOKENS",
    "ArchiveChoice",
    "AsyncArchiveChoice",
    "AsyncCompactor",
    "Compacted",
    "CompactionConfig",
    "CompactionConflictError",
    "CompactionFailedError",
    "CompactionOutcome",
    "CompactionRange",
    "CompactionRangeError",
    "CompactionStalled",
    "Compactor",
    "NotNeeded",
    "StallReason",
    "SummarizerError",
    "SummaryNotSmallerError",
    "Trigger",
]
