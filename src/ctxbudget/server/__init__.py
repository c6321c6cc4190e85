"""The budget proxy and HTTP service (extra ``server``): ``ctxbudget serve``.

Point an agent's base URL at the proxy and every call is held to its budget,
forwarded to the provider, and logged with its usage into the session ledger;
the JSON service answers counts, context breakdowns, fits and session
measurements. See docs/server.md.
"""

from ctxbudget.errors import MissingExtraError as _MissingExtraError

try:
    import fastapi  # noqa: F401
    import httpx  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as missing:  # pragma: no cover - depends on the installed extras
    raise _MissingExtraError(
        feature="ctxbudget.server", extra="server", module=missing.name or "fastapi"
    ) from None

from ctxbudget.server.app import app_from_environment, create_app
from ctxbudget.server.dialects import DIALECTS, Dialect
from ctxbudget.server.sessions import SESSION_HEADER, derive_session_id
from ctxbudget.server.settings import (
    API_TOKEN_VARIABLE,
    PROXY_TOKEN_VARIABLE,
    ServerSettings,
    load_server_settings,
)
from ctxbudget.server.summary_cache import SpanSummaryCache
from ctxbudget.server.upstream import PROXY_TOKEN_HEADER

__all__ = [
    "API_TOKEN_VARIABLE",
    "DIALECTS",
    "PROXY_TOKEN_HEADER",
    "PROXY_TOKEN_VARIABLE",
    "SESSION_HEADER",
    "Dialect",
    "ServerSettings",
    "SpanSummaryCache",
    "app_from_environment",
    "create_app",
    "derive_session_id",
    "load_server_settings",
]
