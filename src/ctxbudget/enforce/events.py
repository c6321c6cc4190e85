"""Events of the enforcement pipeline, and where they go.

Nothing the pipeline decides is silent: every stage that changes a request,
every cache-guard skip, every refusal and every unusable config file is an event.
The default sink logs to the ``ctxbudget`` logger; hosts plug in their own sink
to feed metrics or telemetry.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol, TypeAlias, runtime_checkable

__all__ = [
    "BUDGET_EXCEEDED",
    "CACHE_GUARD_SKIPPED",
    "CONFIG_INVALID",
    "STAGE_APPLIED",
    "BudgetEvent",
    "EventName",
    "EventSink",
    "LoggingSink",
]

EventName: TypeAlias = Literal[
    "budget_exceeded", "stage_applied", "cache_guard_skipped", "config_invalid"
]
BUDGET_EXCEEDED: Final = "budget_exceeded"
"""Nothing could make the request fit; it was refused with ``BudgetExceeded``."""
STAGE_APPLIED: Final = "stage_applied"
"""A stage changed the request (fields: ``stage``, ``after_tokens``, ``budget_tokens``)."""
CACHE_GUARD_SKIPPED: Final = "cache_guard_skipped"
"""The prompt cache was hot and the overshoot mild: the request went out unchanged."""
CONFIG_INVALID: Final = "config_invalid"
"""A config file could not be used as written (fields: ``path``, ``problem``)."""

_WARNINGS: Final = frozenset({BUDGET_EXCEEDED, CONFIG_INVALID})


@dataclass(frozen=True, slots=True)
class BudgetEvent:
    """One thing the pipeline did or refused, with the numbers behind it."""

    name: EventName
    message: str
    fields: Mapping[str, object] = field(default_factory=dict)


@runtime_checkable
class EventSink(Protocol):
    """Receives every event; must not raise (an event is a report, not a decision)."""

    def emit(self, event: BudgetEvent) -> None:
        """Record ``event``."""
        ...


@dataclass(frozen=True, slots=True)
class LoggingSink:
    """Logs events: refusals and bad config as warnings, the rest as info.

    The event name and fields ride along in ``extra`` (``ctxbudget_event``,
    ``ctxbudget_fields``) for structured log handlers.
    """

    logger: logging.Logger = field(default_factory=lambda: logging.getLogger("ctxbudget"))

    def emit(self, event: BudgetEvent) -> None:
        """Log ``event`` on the configured logger."""
        level = logging.WARNING if event.name in _WARNINGS else logging.INFO
        self.logger.log(
            level,
            "%s: %s",
            event.name,
            event.message,
            extra={"ctxbudget_event": event.name, "ctxbudget_fields": dict(event.fields)},
        )
