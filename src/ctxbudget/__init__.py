"""ctxbudget: keep an LLM agent's prompt inside its context window and its budget.

The names a request path and a meter need are here: parse and enforce a
provider body, count tokens, replay a session's ledger, the extension points a
host plugs in and the errors it catches. Each layer has its own package with
the rest: ``kernel`` (pure budget arithmetic, the item-level compaction API),
``content``, ``tokens``, ``formats``, ``ledger``, ``meter``, ``summaries``,
``archives``, ``enforce``; ``testing`` holds one fake per extension point.
"""

from ctxbudget.archives import Archive, AsyncArchive, Original
from ctxbudget.content import Message
from ctxbudget.enforce import (
    BudgetConfig,
    BudgetEvent,
    Enforced,
    EventSink,
    enforce_budget,
    enforce_budget_async,
    load_budget_config,
)
from ctxbudget.errors import (
    BudgetExceeded,
    ConfigError,
    CtxBudgetError,
    FormatError,
    LedgerError,
    MissingExtraError,
)
from ctxbudget.formats import (
    Request,
    RequestCache,
    detect_format,
    meter_request,
    parse_request,
    render_request,
)
from ctxbudget.ledger import Event, Ledger, open_async_ledger, open_ledger
from ctxbudget.meter import Measurement, TokenMeter
from ctxbudget.summaries import AsyncSummarizer, Summarizer, SummaryRequest
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__version__ = "0.1.0"

__all__ = [
    "Archive",
    "AsyncArchive",
    "AsyncSummarizer",
    "BudgetConfig",
    "BudgetEvent",
    "BudgetExceeded",
    "ConfigError",
    "CtxBudgetError",
    "Enforced",
    "Event",
    "EventSink",
    "FormatError",
    "Ledger",
    "LedgerError",
    "Measurement",
    "Message",
    "MissingExtraError",
    "Original",
    "Request",
    "RequestCache",
    "Summarizer",
    "SummaryRequest",
    "TokenCounter",
    "TokenMeter",
    "__version__",
    "default_counter",
    "detect_format",
    "enforce_budget",
    "enforce_budget_async",
    "get_counter",
    "load_budget_config",
    "meter_request",
    "open_async_ledger",
    "open_ledger",
    "parse_request",
    "render_request",
]
