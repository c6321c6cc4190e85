"""Guards in front of every route: the body size limit and the tokens.

Plain ASGI middleware (no per-request objects beyond the checks themselves), so
the proxy's hot path pays microseconds. Refusals come in the route's own error
shape: a provider's for the proxy routes, the service's for the rest.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ctxbudget.errors import CtxBudgetError, RequestTooLargeError, UnauthorizedError
from ctxbudget.server.provider_errors import ErrorShape, error_body
from ctxbudget.server.upstream import PROXY_TOKEN_HEADER

__all__ = ["OPEN_PATHS", "GuardMiddleware"]

OPEN_PATHS: Final = frozenset({"/health"})
"""Paths no token is asked for (readiness probes)."""


class GuardMiddleware:
    """413 for bodies over ``max_body_bytes``; 401 without the right token.

    ``proxy_shapes`` maps each proxy path to its provider's error shape. Proxy
    paths want ``X-Ctxbudget-Token`` when ``proxy_token`` is set; every other path
    but ``OPEN_PATHS`` wants ``Authorization: Bearer <api_token>`` when that is set.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        api_token: str | None,
        proxy_token: str | None,
        proxy_shapes: Mapping[str, ErrorShape],
    ) -> None:
        self._app = app
        self._limit = max_body_bytes
        self._api_token = api_token
        self._proxy_token = proxy_token
        self._shapes = proxy_shapes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        path: str = scope["path"]
        shape: ErrorShape = self._shapes.get(path, "service")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(path, shape, headers)
        if refusal is not None:
            await _answer(send, refusal, shape)
            return
        body = await _read_body(receive, self._limit)
        if body is None:
            await _answer(send, RequestTooLargeError(self._limit), shape)
            return
        await self._app(scope, _replay(body, receive), send)

    def _refusal(self, path: str, shape: str, headers: Mapping[str, str]) -> CtxBudgetError | None:
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self._limit:
            return RequestTooLargeError(self._limit)
        if shape != "service":
            expected, given = self._proxy_token, headers.get(PROXY_TOKEN_HEADER, "")
            where = f"the {PROXY_TOKEN_HEADER} header"
        elif path not in OPEN_PATHS:
            expected = self._api_token
            scheme, _, given = headers.get("authorization", "").partition(" ")
            given = given.strip() if scheme.lower() == "bearer" else ""
            where = "Authorization: Bearer <token>"
        else:
            return None
        if expected is not None and not hmac.compare_digest(given.encode(), expected.encode()):
            return UnauthorizedError(f"this server wants its token in {where}")
        return None


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or ``None`` once it passes ``limit`` bytes (a body sent
    without a length, in chunks, is counted as it arrives)."""
    parts: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(parts)  # the client went away; the app will see the disconnect
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > limit:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already, then whatever the client sends."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _answer(send: Send, error: CtxBudgetError, shape: ErrorShape) -> None:
    status, body = error_body(error, shape)
    if shape == "service":
        status = 401 if isinstance(error, UnauthorizedError) else status
    payload = json.dumps(body).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if isinstance(error, UnauthorizedError) and shape == "service":
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
