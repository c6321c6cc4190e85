"""Prompt budget enforcement on the request path (seed 003, ``docs/enforce.md``).

``enforce_budget(body, config)`` estimates an OpenAI Chat, OpenAI Responses or
Anthropic request and, when it is over the agent's budget, runs ``STAGES`` from
the least lossy to the most aggressive (``turn_trim``,
``drop_oldest_tool_echoes``, ``summarize``), stopping at the first fit; inside
each stage the oldest content goes first and the stage stops as soon as the
request fits. When nothing fits it refuses with ``BudgetExceeded`` instead of
sending an over-budget prompt. No stage alters the system prompt (never-trim
sections live there), a hot prompt cache can skip compression (never past the
model's hard cap), and every decision is an event.
"""

from ctxbudget.enforce.config import (
    DEFAULT_NEVER_TRIM_HEADERS,
    RANGES,
    SUMMARIZERS,
    BudgetConfig,
    Range,
    load_budget_config,
)
from ctxbudget.enforce.echoes import STUB_ARCHIVED, STUB_UNAVAILABLE, DropOldestToolEchoes
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
    STAGES,
    CompressionInfo,
    Enforced,
    effective_budget,
)
from ctxbudget.enforce.run import enforce_budget, enforce_budget_async
from ctxbudget.enforce.sections import protected_texts, split_sections
from ctxbudget.enforce.stage import Stage, StageContext
from ctxbudget.enforce.summary import SUMMARY_HEADER, Summarize
from ctxbudget.enforce.trim import TRIM_MARKER, TrimRule, TurnTrim, trim_text
from ctxbudget.errors import BudgetExceeded, ConfigError, FormatError

__all__ = [
    "BUDGET_EXCEEDED",
    "CACHE_GUARD_SKIPPED",
    "CONFIG_INVALID",
    "DEFAULT_NEVER_TRIM_HEADERS",
    "NOT_COMPRESSED",
    "RANGES",
    "STAGES",
    "STAGE_APPLIED",
    "STAGE_NAMES",
    "STUB_ARCHIVED",
    "STUB_UNAVAILABLE",
    "SUMMARIZERS",
    "SUMMARY_HEADER",
    "TRIM_MARKER",
    "BudgetConfig",
    "BudgetEvent",
    "BudgetExceeded",
    "CompressionInfo",
    "ConfigError",
    "DropOldestToolEchoes",
    "Enforced",
    "EventName",
    "EventSink",
    "FormatError",
    "LoggingSink",
    "Range",
    "SegmentTokens",
    "Stage",
    "StageContext",
    "Summarize",
    "TrimRule",
    "TurnTrim",
    "effective_budget",
    "enforce_budget",
    "enforce_budget_async",
    "load_budget_config",
    "overshoot_ratio",
    "protected_texts",
    "should_skip_for_cache",
    "split_sections",
    "trim_text",
]
