"""Talking to the provider behind the proxy: which headers go, which come back, and
what a failed connection becomes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import httpx

from ctxbudget.errors import (
    UpstreamBadResponseError,
    UpstreamTimeoutError,
    UpstreamUnavailableError,
)

__all__ = [
    "PROXY_TOKEN_HEADER",
    "open_upstream",
    "read_answer",
    "request_headers",
    "response_headers",
    "target_url",
    "upstream_transport",
]

PROXY_TOKEN_HEADER: Final = "x-ctxbudget-token"
"""Where a client sends the proxy's own token (never forwarded)."""

_HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
_NOT_FORWARDED: Final = _HOP_BY_HOP | {"host", "content-length", "accept-encoding"}
_NOT_RETURNED: Final = _HOP_BY_HOP | {"content-length", "content-encoding", "date", "server"}


def target_url(base: str, path: str, query: str) -> str:
    """The upstream URL of a proxied path: a base ending in ``/v1`` takes the path after
    its own ``/v1`` (``https://api.openai.com/v1``), any other base the whole path."""
    base = base.rstrip("/")
    if base.endswith("/v1") and path.startswith("/v1/"):
        path = path[3:]
    return f"{base}{path}?{query}" if query else f"{base}{path}"


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The client's headers as they go upstream: untouched, except hop-by-hop ones and
    ctxbudget's own; the answer is asked for uncompressed so it passes byte for byte."""
    kept = [
        (name, value)
        for name, value in headers
        if name.lower() not in _NOT_FORWARDED and not name.lower().startswith("x-ctxbudget-")
    ]
    kept.append(("accept-encoding", "identity"))
    return kept


def response_headers(headers: httpx.Headers) -> dict[str, str]:
    """The upstream's answer headers the client gets back."""
    return {name: value for name, value in headers.items() if name.lower() not in _NOT_RETURNED}


# Servers built on uvicorn or gunicorn (local gateways, vLLM, LiteLLM) drop idle
# connections after 5 s, httpx's own default expiry: a call that picks a connection just as
# the server drops it fails, and a POST is not retried. Giving connections up first avoids it.
_KEEPALIVE_SECONDS: Final = 4.0


def upstream_transport() -> httpx.AsyncHTTPTransport:
    """The connection pool every proxied call goes out through (keep-alive, shared).

    Calls go to the transport itself, not through an ``httpx.AsyncClient``: a client
    keeps the cookies answers set and sends them with every later call, so one agent's
    provider cookies would reach the provider with another agent's calls; it also adds
    headers of its own (``user-agent``, ``accept``) that the agent did not send, and its
    auth, redirect and cookie steps cost about a third of a millisecond per call.
    """
    return httpx.AsyncHTTPTransport(
        limits=httpx.Limits(
            max_connections=1000,
            max_keepalive_connections=200,
            keepalive_expiry=_KEEPALIVE_SECONDS,
        ),
        trust_env=False,  # the upstream URL is the one configured, never a proxy from the env
        retries=0,
    )


async def open_upstream(
    transport: httpx.AsyncBaseTransport,
    url: str,
    headers: list[tuple[str, str]],
    content: bytes,
    timeout: httpx.Timeout,
) -> httpx.Response:
    """Send the call and return once the answer's headers are in (its body still open)."""
    request = httpx.Request(
        "POST", url, headers=headers, content=content, extensions={"timeout": timeout.as_dict()}
    )
    try:
        return await transport.handle_async_request(request)
    except httpx.TimeoutException:
        raise UpstreamTimeoutError(
            f"the upstream at {_origin(url)} did not answer in time; try again, or raise "
            "upstream_timeout_s"
        ) from None
    except httpx.HTTPError as exc:
        raise UpstreamUnavailableError(
            f"cannot reach the upstream at {_origin(url)} ({type(exc).__name__}); check that "
            "it runs and that the proxy's upstream URL is right"
        ) from None


async def read_answer(response: httpx.Response, url: str) -> bytes:
    """The whole body of an answer whose headers are in."""
    try:
        return await response.aread()
    except httpx.TimeoutException:
        raise UpstreamTimeoutError(
            f"the upstream at {_origin(url)} stopped answering; try again, or raise "
            "upstream_timeout_s"
        ) from None
    except httpx.HTTPError as exc:
        raise UpstreamBadResponseError(
            f"the upstream at {_origin(url)} broke off its answer ({type(exc).__name__})"
        ) from None
    finally:
        await response.aclose()


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.host}" + (f":{parsed.port}" if parsed.port else "")
