"""Errors in the shape each provider's clients expect, and the service's own shape.

The proxy answers a refused or failed call the way the provider would, so an
agent's SDK raises its usual exception (``BadRequestError`` and so on) and never
sees a traceback. Each body also carries ``ctxbudget: {code, ...}`` with the
stable error code; SDKs ignore fields they do not know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from ctxbudget.errors import (
    BudgetExceeded,
    ConfigError,
    ConflictError,
    CtxBudgetError,
    FormatError,
    InvalidEventError,
    InvalidSessionIdError,
    RequestTooLargeError,
    RouteNotConfiguredError,
    SessionNotFoundError,
    StoreUnavailableError,
    UnauthorizedError,
    UpstreamBadResponseError,
    UpstreamError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
)

__all__ = [
    "ErrorShape",
    "ProblemKind",
    "error_body",
    "problem_of",
    "service_status",
]

ErrorShape: TypeAlias = Literal["openai", "anthropic", "service"]
"""Whose error shape a route answers in."""


@dataclass(frozen=True, slots=True)
class ProblemKind:
    """How one kind of error is answered: status and each provider's type names."""

    status: int
    openai_type: str
    anthropic_type: str
    openai_code: str | None = None


_BAD_REQUEST: Final = ProblemKind(400, "invalid_request_error", "invalid_request_error")
_SERVER: Final = ProblemKind(500, "server_error", "api_error")

_KINDS: Final[tuple[tuple[type[CtxBudgetError], ProblemKind], ...]] = (
    (
        BudgetExceeded,
        ProblemKind(
            400, "invalid_request_error", "invalid_request_error", "context_length_exceeded"
        ),
    ),
    (FormatError, _BAD_REQUEST),
    (InvalidSessionIdError, _BAD_REQUEST),
    (UnauthorizedError, ProblemKind(401, "invalid_request_error", "authentication_error")),
    (SessionNotFoundError, ProblemKind(404, "invalid_request_error", "not_found_error")),
    (RouteNotConfiguredError, ProblemKind(404, "invalid_request_error", "not_found_error")),
    (RequestTooLargeError, ProblemKind(413, "invalid_request_error", "request_too_large")),
    (UpstreamUnavailableError, ProblemKind(502, "server_error", "api_error")),
    (UpstreamTimeoutError, ProblemKind(504, "server_error", "api_error")),
    (UpstreamBadResponseError, ProblemKind(502, "server_error", "api_error")),
    (UpstreamError, ProblemKind(502, "server_error", "api_error")),
    (StoreUnavailableError, ProblemKind(503, "server_error", "api_error")),
)

_SERVICE_STATUS: Final[tuple[tuple[type[CtxBudgetError], int], ...]] = (
    (ConflictError, 409),
    (InvalidEventError, 422),
    (ConfigError, 422),
)


def problem_of(error: CtxBudgetError) -> ProblemKind:
    """The status and type names ``error`` is answered with."""
    for cls, kind in _KINDS:
        if isinstance(error, cls):
            return kind
    return _SERVER


def service_status(error: CtxBudgetError) -> int:
    """The HTTP status the JSON service answers ``error`` with."""
    for cls, status in _SERVICE_STATUS:
        if isinstance(error, cls):
            return status
    return problem_of(error).status


def _details(error: CtxBudgetError) -> dict[str, Any]:
    details: dict[str, Any] = {"code": error.code}
    if isinstance(error, BudgetExceeded):
        details.update(
            estimated_tokens=error.estimated_tokens,
            budget_tokens=error.budget_tokens,
            stages_tried=list(error.stages_tried),
            protected_tokens=error.protected_tokens,
            largest_segment=error.largest_segment,
            largest_segment_tokens=error.largest_segment_tokens,
        )
    return details


def error_body(error: CtxBudgetError, shape: ErrorShape) -> tuple[int, dict[str, Any]]:
    """(status, JSON body) answering ``error`` in ``shape``."""
    kind = problem_of(error)
    message = f"ctxbudget: {error}"
    details = _details(error)
    if shape == "openai":
        param = "messages" if isinstance(error, BudgetExceeded) else None
        body: dict[str, Any] = {
            "error": {
                "message": message,
                "type": kind.openai_type,
                "param": param,
                "code": kind.openai_code or error.code,
            },
            "ctxbudget": details,
        }
    elif shape == "anthropic":
        body = {
            "type": "error",
            "error": {"type": kind.anthropic_type, "message": message},
            "ctxbudget": details,
        }
    else:
        body = {"error": {**details, "message": str(error)}}
        return service_status(error), body
    return kind.status, body
