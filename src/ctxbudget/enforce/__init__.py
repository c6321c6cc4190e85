"""Prompt budget enforcement on the request path (seed 003).

``enforce(body, config, format=...)`` estimates an OpenAI or Anthropic request
and, when it is over the agent's budget, goes from the least lossy step to the
most aggressive (``turn_trim``, ``drop_oldest_tool_echoes``, ``summarize``),
stopping at the first that fits. When nothing fits it refuses with
``BudgetExceeded`` instead of sending an over-budget prompt. Never-trim sections
of the system prompt are never altered, a hot prompt cache can skip compression
(never past the model's hard cap), and every decision is an event.
"""

from ctxbudget.enforce.archives import HANDLE_PREFIX, DirectoryArchive
from ctxbudget.enforce.config import DEFAULT_NEVER_TRIM_HEADERS, BudgetConfig, load_budget_config
from ctxbudget.enforce.echoes import STUB_ARCHIVED, STUB_UNAVAILABLE
from ctxbudget.enforce.estimate import SegmentTokens
from ctxbudget.enforce.events import (
    BUDGET_EXCEEDED,
    CACHE_GUARD_SKIPPED,
    CONFIG_INVALID,
    STAGE_APPLIED,
    BudgetEvent,
    EventName,
    EventSink,
    LoggingSink,
)
from ctxbudget.enforce.guard import overshoot_ratio, should_skip_for_cache
from ctxbudget.enforce.pipeline import (
    NOT_COMPRESSED,
    STAGE_NAMES,
    CompressionInfo,
    Enforced,
    effective_budget,
)
from ctxbudget.enforce.protocols import (
    AsyncOriginalsArchive,
    AsyncTurnSummarizer,
    Original,
    OriginalsArchive,
    SummaryRequest,
    TurnSummarizer,
)
from ctxbudget.enforce.run import enforce, enforce_async
from ctxbudget.enforce.sections import protected_texts, split_sections
from ctxbudget.enforce.summary import SUMMARY_HEADER, transcript
from ctxbudget.enforce.trim import TRIM_MARKER, TrimRule, trim_text
from ctxbudget.errors import BudgetExceeded, ConfigError, FormatError

__all__ = [
    "BUDGET_EXCEEDED",
    "CACHE_GUARD_SKIPPED",
    "CONFIG_INVALID",
    "DEFAULT_NEVER_TRIM_HEADERS",
    "HANDLE_PREFIX",
    "NOT_COMPRESSED",
    "STAGE_APPLIED",
    "STAGE_NAMES",
    "STUB_ARCHIVED",
    "STUB_UNAVAILABLE",
    "SUMMARY_HEADER",
    "TRIM_MARKER",
    "AsyncOriginalsArchive",
    "AsyncTurnSummarizer",
    "BudgetConfig",
    "BudgetEvent",
    "BudgetExceeded",
    "CompressionInfo",
    "ConfigError",
    "DirectoryArchive",
    "Enforced",
    "EventName",
    "EventSink",
    "FormatError",
    "LoggingSink",
    "Original",
    "OriginalsArchive",
    "SegmentTokens",
    "SummaryRequest",
    "TrimRule",
    "TurnSummarizer",
    "effective_budget",
    "enforce",
    "enforce_async",
    "load_budget_config",
    "overshoot_ratio",
    "protected_texts",
    "should_skip_for_cache",
    "split_sections",
    "transcript",
    "trim_text",
]
