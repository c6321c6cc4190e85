"""The budget proxy: enforce, forward, pass the answer through, log the call.

One handler serves every provider route; the route's ``Dialect`` says what
differs. Order of work for a call:

1. parse the body, name the session, enforce the budget (a refusal is answered
   here, in the provider's error shape, and nothing is sent upstream);
2. forward the call (the body the client sent, byte for byte, unless enforcement
   changed it) with the client's own headers;
3. pass the answer back: a stream chunk by chunk as it arrives, a plain answer
   byte for byte;
4. log the call (the request's new messages, the answer, its usage) once the
   answer is complete; a call that failed anywhere is not logged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from ctxbudget.content import Message
from ctxbudget.enforce import enforce_budget_async
from ctxbudget.errors import (
    CtxBudgetError,
    FormatError,
    RouteNotConfiguredError,
    UpstreamBadResponseError,
)
from ctxbudget.formats import Request, decode_json, parse_request
from ctxbudget.ledger import check_session_id
from ctxbudget.server.dialects import Dialect, StreamCollector, answer_of, request_header
from ctxbudget.server.mirror import cached_units
from ctxbudget.server.provider_errors import error_body
from ctxbudget.server.sessions import SESSION_HEADER, derive_session_id
from ctxbudget.server.sse import SSEReader
from ctxbudget.server.state import ServerState
from ctxbudget.server.upstream import (
    open_upstream,
    read_answer,
    request_headers,
    response_headers,
    target_url,
)

__all__ = ["provider_error", "proxy_call"]

_log = logging.getLogger("ctxbudget.server")


def provider_error(error: CtxBudgetError, dialect: Dialect) -> JSONResponse:
    """``error`` answered as the route's provider would."""
    status, body = error_body(error, dialect.error_shape)
    return JSONResponse(body, status_code=status)


@dataclass(frozen=True, slots=True)
class _Call:
    """A parsed, enforced call ready to go upstream."""

    session_id: str
    request: Request
    messages: tuple[Message, ...]
    header: dict[str, Any] | None  # worked out for a derived session; else when logging
    url: str
    content: bytes
    stages: str


async def _prepare(
    scope: Scope, headers: Headers, raw: bytes, dialect: Dialect, state: ServerState
) -> _Call:
    body = decode_json(raw, "the request body")
    if not isinstance(body, dict):
        raise FormatError("the request body must be a JSON object")
    base = state.settings.upstreams.get(dialect.upstream)
    if base is None:
        raise RouteNotConfiguredError(
            f"{dialect.path} needs an upstream: start the proxy with "
            f"--upstream-{dialect.upstream} URL (or [upstream] {dialect.upstream} in the TOML)"
        )
    # Parsed once per call: enforcement is given this parse.
    parsed = parse_request(body, dialect.format, cache=state.requests)
    messages = parsed.messages()
    named = headers.get(SESSION_HEADER)
    header = None
    if not named:
        # Only the envelope and the first message name a derived session; the units of
        # the rest are looked up when the call is logged, after the answer is on its way
        # (so is the envelope of a named session: copying tool declarations costs).
        header = request_header(dialect, parsed)
        first = cached_units(messages[:1], state.requests)
        named = derive_session_id(dialect.provider, header, first)
    session_id = check_session_id(named)
    view = await state.recorder.view(session_id)
    enforced = await enforce_budget_async(
        body,
        state.settings.budget,
        format=dialect.format,  # type: ignore[arg-type]
        window=state.windows.window(body.get("model")),
        cache_efficiency=view.cache_efficiency,
        summarizer=state.summaries,
        archive=state.archive,
        cache=state.requests,
        parsed=parsed,
    )
    content = raw if enforced.body is body else json.dumps(enforced.body).encode("utf-8")
    query: bytes = scope.get("query_string", b"")
    return _Call(
        session_id=session_id,
        request=parsed,
        messages=messages,
        header=header,
        url=target_url(base, scope["path"], query.decode("latin-1")),
        content=content,
        stages=enforced.info.stages_text if enforced.info.compressed else "",
    )


async def proxy_call(
    scope: Scope, receive: Receive, send: Send, dialect: Dialect, state: ServerState
) -> None:
    """Serve one proxied provider call: a plain ASGI app (no framework routing or
    request objects on the path every call takes)."""
    raw = await _read_body(receive)
    headers = Headers(scope=scope)
    try:
        call = await _prepare(scope, headers, raw, dialect, state)
        response = await open_upstream(
            state.upstream, call.url, request_headers(headers.items()), call.content, state.timeout
        )
    except CtxBudgetError as error:
        await provider_error(error, dialect)(scope, receive, send)
        return
    extra = {"x-ctxbudget-session": call.session_id}
    if call.stages:
        extra["x-ctxbudget-stages"] = call.stages
    if response.status_code < 300 and "text/event-stream" in response.headers.get(
        "content-type", ""
    ):
        streamed = StreamingResponse(
            _relay(response, dialect, state, call),
            status_code=response.status_code,
            headers={**response_headers(response.headers), **extra},
        )
        await streamed(scope, receive, send)
        return
    try:
        answer_raw = await read_answer(response, call.url)
        answer = _checked_answer(answer_raw, response.status_code)
    except CtxBudgetError as error:
        await provider_error(error, dialect)(scope, receive, send)
        return
    plain = Response(
        answer_raw,
        status_code=response.status_code,
        headers={**response_headers(response.headers), **extra},
    )
    if answer is None:  # an upstream error in the provider's shape: passed on as is
        await plain(scope, receive, send)
        return
    # The call is expected before the first byte goes out, so whatever the client does
    # next with the session (GET /sessions/{id}) waits for it, while no answer waits for
    # the ledger; it is logged in a task of its own however the sending ends.
    state.recorder.expect(call.session_id)
    try:
        await plain(scope, receive, send)
    finally:
        state.recorder.log_later(call.session_id, lambda: _log_answer(answer, dialect, state, call))


async def _read_body(receive: Receive) -> bytes:
    """The request body (the guard in front has bounded its size)."""
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away; the answer will find no one to send to
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _checked_answer(raw: bytes, status: int) -> Mapping[str, Any] | None:
    """The decoded answer of a successful call; ``None`` for an upstream error that is
    already in the provider's shape (passed on untouched); an error otherwise."""
    try:
        decoded = json.loads(raw)
    except (ValueError, RecursionError):  # a body nested too deeply is not one to read
        decoded = None
    if 400 <= status < 500 or (
        status >= 500 and isinstance(decoded, Mapping) and "error" in decoded
    ):
        return None
    if status >= 300:
        raise UpstreamBadResponseError(f"the upstream answered HTTP {status} without an error body")
    if not isinstance(decoded, Mapping):
        raise UpstreamBadResponseError(
            "the upstream answered with a body that is not a JSON object"
        )
    return decoded


async def _log_answer(
    answer: Mapping[str, Any], dialect: Dialect, state: ServerState, call: _Call
) -> None:
    try:
        items = dialect.answer_items(answer)
        await _record(dialect, state, call, items, answer.get("usage"), answer.get("model"))
    except (FormatError, KeyError, TypeError, ValueError) as exc:
        _log.warning("ctxbudget proxy: answer for session %s not logged: %s", call.session_id, exc)


async def _record(
    dialect: Dialect, state: ServerState, call: _Call, items: list[Any], usage: Any, model: Any
) -> None:
    """Log the call; the caller holds the session's lock. A ledger that fails is
    reported in the log: the client already has its answer."""
    header = call.header if call.header is not None else request_header(dialect, call.request)
    if not isinstance(model, str) or not model:
        model = header["config"].get("model")
    answered = answer_of(dialect, items, usage if isinstance(usage, Mapping) else None, model)
    try:
        # Re-sent messages' units are cached (hashing a 200K-token history anew would
        # take milliseconds): a warm call hashes only what it adds, on the event loop.
        units = cached_units(call.messages, state.requests)
        await state.recorder.record(call.session_id, units, header, answered)
    except CtxBudgetError as error:
        _log.warning(
            "ctxbudget proxy: call of session %s not logged [%s]: %s",
            call.session_id,
            error.code,
            error,
        )


async def _relay(
    response: httpx.Response, dialect: Dialect, state: ServerState, call: _Call
) -> AsyncIterator[bytes]:
    """The answer's bytes as they arrive; the call is logged once the stream completes.

    Each chunk is read for events before it is passed on (no byte waits for more
    than that). The chunk that completes the answer starts the logging, in a task
    of its own, before it goes out: the client may hang up as soon as it has it.
    """
    reader, collector, logging = SSEReader(), dialect.new_stream(), False
    try:
        async for chunk in response.aiter_raw():
            _follow(reader, collector, chunk)
            if collector.complete and not logging:
                logging = True
                _log_stream(collector, dialect, state, call)
            yield chunk
    except httpx.HTTPError as exc:
        _log.warning("ctxbudget proxy: upstream stream broke off (%s)", type(exc).__name__)
        yield _stream_error(dialect)
    finally:
        await response.aclose()


def _log_stream(
    collector: StreamCollector, dialect: Dialect, state: ServerState, call: _Call
) -> None:
    async def log() -> None:
        try:
            # Assembled here, so that a stream the upstream garbled (tool-call arguments
            # that are not JSON) is reported, not raised into the finished answer.
            items, usage = collector.result()
            await _record(dialect, state, call, items, usage, None)
        except (FormatError, KeyError, TypeError, ValueError, RecursionError) as exc:
            _log.warning("ctxbudget proxy: stream of %s not logged: %s", call.session_id, exc)

    state.recorder.expect(call.session_id)
    state.recorder.log_later(call.session_id, log)


def _follow(reader: SSEReader, collector: StreamCollector, chunk: bytes) -> None:
    for event in reader.feed(chunk):
        collector.take(event)


def _stream_error(dialect: Dialect) -> bytes:
    error = UpstreamBadResponseError("the upstream broke off its streamed answer; try again")
    _, body = error_body(error, dialect.error_shape)
    prefix = "event: error\n" if dialect.error_shape == "anthropic" else ""
    return f"{prefix}data: {json.dumps(body)}\n\n".encode()
