"""The budget kernel: pure, deterministic, standard library only.

Segmented metering (``Meter``), the input cap (``max_input``), pressure levels
(``classify``) and compaction planning (``build_plan``, ``apply``). No I/O, no
clock, no randomness: counts, windows and the host's archive and summarizer come
in as arguments.
"""

from ctxbudget.errors import (
    ApplyRefusedError,
    ArchiveFailedError,
    CompactionFailedError,
    CutoffTooLowError,
    EmptyPlanError,
    NotWiredError,
    PlanInconsistentError,
    PlanMismatchError,
    PlanRefusedError,
    SummarizeFailedError,
    TooFewItemsError,
    TooFewToSummarizeError,
)
from ctxbudget.kernel._apply import (
    SUMMARY_ITEM_ID,
    ApplyResult,
    AsyncItemArchive,
    AsyncItemSummarizer,
    Item,
    ItemArchive,
    ItemSummarizer,
    Locator,
    Summary,
    apply,
    apply_async,
    net_removed_tokens,
)
from ctxbudget.kernel.meter import Display, Meter, Report, SegmentUsage
from ctxbudget.kernel.plan import (
    FORCE_KEEP_ITEMS,
    MIN_EFFECTIVE_ITEMS,
    MIN_SUMMARIZE_ITEMS,
    Plan,
    PlanInput,
    build_plan,
)
from ctxbudget.kernel.pressure import CRITICAL_AT_PCT, TIGHT_AT_PCT, Pressure, classify
from ctxbudget.kernel.segments import (
    CANONICAL_SEGMENTS,
    CONVERSATION,
    MCP,
    RULES,
    SKILLS,
    SYSTEM,
    TOOLS,
    Segment,
)
from ctxbudget.kernel.window import MIN_INPUT_TOKENS, max_input, max_input_with_host_cap

__all__ = [
    "CANONICAL_SEGMENTS",
    "CONVERSATION",
    "CRITICAL_AT_PCT",
    "FORCE_KEEP_ITEMS",
    "MCP",
    "MIN_EFFECTIVE_ITEMS",
    "MIN_INPUT_TOKENS",
    "MIN_SUMMARIZE_ITEMS",
    "RULES",
    "SKILLS",
    "SUMMARY_ITEM_ID",
    "SYSTEM",
    "TIGHT_AT_PCT",
    "TOOLS",
    "ApplyRefusedError",
    "ApplyResult",
    "ArchiveFailedError",
    "AsyncItemArchive",
    "AsyncItemSummarizer",
    "CompactionFailedError",
    "CutoffTooLowError",
    "Display",
    "EmptyPlanError",
    "Item",
    "ItemArchive",
    "ItemSummarizer",
    "Locator",
    "Meter",
    "NotWiredError",
    "Plan",
    "PlanInconsistentError",
    "PlanInput",
    "PlanMismatchError",
    "PlanRefusedError",
    "Pressure",
    "Report",
    "Segment",
    "SegmentUsage",
    "SummarizeFailedError",
    "Summary",
    "TooFewItemsError",
    "TooFewToSummarizeError",
    "apply",
    "apply_async",
    "build_plan",
    "classify",
    "max_input",
    "max_input_with_host_cap",
    "net_removed_tokens",
]
