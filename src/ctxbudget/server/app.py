"""``create_app(settings)``: the proxy routes, the JSON service, the guards, one process.

``app_from_environment()`` is the factory uvicorn's worker processes call
(``ctxbudget serve --workers N``): each worker opens its own ledger connection,
so several workers share one PostgreSQL ledger.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any, Final

import httpx
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from ctxbudget.errors import CtxBudgetError, FormatError, StoreUnavailableError
from ctxbudget.formats import RequestCache
from ctxbudget.ledger import open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.server.dialects import DIALECTS, Dialect
from ctxbudget.server.guards import GuardMiddleware
from ctxbudget.server.provider_errors import ErrorShape, error_body
from ctxbudget.server.proxy import provider_error, proxy_call
from ctxbudget.server.service import service_router
from ctxbudget.server.sessions import SessionRecorder
from ctxbudget.server.settings import ServerSettings, settings_from_environment
from ctxbudget.server.state import ServerState
from ctxbudget.server.summary_cache import SpanSummaryCache
from ctxbudget.server.upstream import upstream_transport
from ctxbudget.server.windows import ModelWindows

__all__ = ["app_from_environment", "create_app"]


def _open_state(settings: ServerSettings, summarizer: Any, archive: Any) -> ServerState:
    ledger = open_ledger(settings.ledger_url)
    timeout = httpx.Timeout(settings.upstream_timeout_s, connect=settings.connect_timeout_s)
    summaries = SpanSummaryCache(summarizer, settings.summary_cache_bytes) if summarizer else None
    return ServerState(
        settings=settings,
        ledger=ledger,
        meter=TokenMeter(ledger, context_window=settings.context_window),
        recorder=SessionRecorder(ledger),
        upstream=upstream_transport(),
        timeout=timeout,
        summaries=summaries,
        requests=RequestCache(settings.request_cache_bytes),
        windows=ModelWindows(),
        archive=archive,
    )


class _ProxyAnswer(Response):
    """What a proxy route's endpoint returns when the framework routes the call (the
    app's own fast path normally gets there first): the proxy, as an ASGI app."""

    def __init__(self, dialect: Dialect, state: ServerState) -> None:
        super().__init__()
        self._dialect = dialect
        self._state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await proxy_call(scope, receive, send, self._dialect, self._state)


def _proxy_endpoint(dialect: Dialect) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return _ProxyAnswer(dialect, request.app.state.ctxbudget)

    endpoint.__name__ = f"proxy_{dialect.format.replace('-', '_')}"
    endpoint.__doc__ = (
        f"The {dialect.format} API, enforced and forwarded to the {dialect.upstream} upstream. "
        "Send the provider's own body and headers; add X-Ctxbudget-Session to name the session."
    )
    return endpoint


def create_app(
    settings: ServerSettings | None = None, *, summarizer: Any = None, archive: Any = None
) -> FastAPI:
    """The proxy and service app. ``summarizer`` (a ``ctxbudget.summaries.Summarizer``,
    sync or async; default: the one ``[budget] summarizer`` names) and ``archive``
    (a ``ctxbudget.archives.Archive``; default: a ``FileArchive`` in
    ``settings.archive_dir`` when set) serve the enforcement's summary and tool-echo
    stages; summaries are cached by span content."""
    settings = settings if settings is not None else ServerSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = _open_state(settings, summarizer, archive)
        app.state.ctxbudget = state
        try:
            yield
        finally:
            app.state.ctxbudget = None
            await state.recorder.drain()
            await state.upstream.aclose()
            state.ledger.close()

    app = _App(
        title="ctxbudget",
        summary="Budget proxy and service: keep an agent's prompt inside its budget.",
        version=_version(),
        lifespan=lifespan,
    )
    app.state.ctxbudget = None

    @app.get("/health", tags=["service"])
    async def health(request: Request) -> Response:
        """200 once the server can take calls, 503 before."""
        ready = request.app.state.ctxbudget is not None
        return JSONResponse({"status": "ok" if ready else "starting"}, 200 if ready else 503)

    for dialect in DIALECTS.values():
        app.add_api_route(dialect.path, _proxy_endpoint(dialect), methods=["POST"], tags=["proxy"])
    app.include_router(service_router())
    _add_error_handlers(app)
    shapes: dict[str, ErrorShape] = {d.path: d.error_shape for d in DIALECTS.values()}
    guards: dict[str, Any] = {
        "max_body_bytes": settings.max_body_bytes,
        "api_token": settings.api_token,
        "proxy_token": settings.proxy_token,
        "proxy_shapes": shapes,
    }
    app.add_middleware(GuardMiddleware, **guards)
    app.proxy_routes = {
        d.path: GuardMiddleware(_ProxyRoute(app, d), **guards) for d in DIALECTS.values()
    }
    return app


class _App(FastAPI):
    """The FastAPI app, with a fast path for the proxy routes.

    A proxied call is the one every agent call pays for, so ``POST`` to a proxy route
    goes to the guards and the proxy directly, as plain ASGI, instead of through the
    framework's middleware stack, router, dependency solving and request objects (a
    fixed cost on every call, whatever its size; docs/server.md, "speed").
    The routes stay registered with the framework for the OpenAPI schema, and serve
    the same handler if the framework ever routes a call to them.
    """

    proxy_routes: dict[str, ASGIApp]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            route = self.proxy_routes.get(scope["path"])
            if route is not None:
                await route(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


class _ProxyRoute:
    """One proxy route as an ASGI app over the app's running state."""

    def __init__(self, app: FastAPI, dialect: Dialect) -> None:
        self._app = app
        self._dialect = dialect

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        state: ServerState | None = self._app.state.ctxbudget
        if state is None:  # not started, or stopping: 503, as /health says
            error = StoreUnavailableError(
                "the proxy is not running yet (or is stopping); try again"
            )
            await provider_error(error, self._dialect)(scope, receive, send)
            return
        await proxy_call(scope, receive, send, self._dialect, state)


def _add_error_handlers(app: FastAPI) -> None:
    async def ctxbudget_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, CtxBudgetError)
        status, body = error_body(error, "service")
        return JSONResponse(body, status_code=status)

    async def invalid_body(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
            for e in error.errors()
        )
        return await ctxbudget_error(request, FormatError(f"invalid request body ({problems})"))

    async def framework_error(request: Request, error: Exception) -> Response:
        # The framework's own refusals (a body it cannot parse, an unknown path or method)
        # in the service's error shape, like every other error.
        assert isinstance(error, StarletteHTTPException)
        if error.status_code == 400:
            problem = FormatError(
                "the request body is not JSON the service can read (invalid, or nested "
                "too deeply); send a JSON object"
            )
            return await ctxbudget_error(request, problem)
        code = _FRAMEWORK_CODES.get(error.status_code, "http_error")
        return JSONResponse(
            {"error": {"code": code, "message": str(error.detail)}},
            status_code=error.status_code,
            headers=error.headers,
        )

    app.add_exception_handler(CtxBudgetError, ctxbudget_error)
    app.add_exception_handler(RequestValidationError, invalid_body)
    app.add_exception_handler(StarletteHTTPException, framework_error)


_FRAMEWORK_CODES: Final = {404: "not_found", 405: "method_not_allowed"}


def _version() -> str:
    try:
        return metadata.version("ctxbudget")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "0+unknown"


def app_from_environment() -> FastAPI:
    """The app for a uvicorn worker process, set up from ``CTXBUDGET_SERVE_SETTINGS``."""
    return create_app(settings_from_environment())
