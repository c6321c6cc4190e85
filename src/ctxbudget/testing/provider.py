"""A stub LLM provider on loopback, for tests and benchmarks of the proxy (extra ``server``).

``StubProvider`` answers OpenAI Chat Completions, OpenAI Responses and Anthropic
Messages calls, plain or streamed, with deterministic text and usage, and keeps
every call it received (path, headers, body bytes). The model name picks a
behaviour, so a test needs no set-up beyond the body it sends:

=====================  =========================================================
model                  answer
=====================  =========================================================
anything else          text ``"stub answer <digest>"`` (of the body); usage from its size
``stub-tool``          a call of the request's first tool (``{"path": "a.py"}``)
``stub-500-html``      HTTP 500 with an HTML page
``stub-500-json``      HTTP 500 with a provider-shaped error object
``stub-401``           HTTP 401 with a provider-shaped error object
``stub-malformed``     HTTP 200 with a body that is not JSON
``stub-slow``          waits ``slow_seconds`` before answering
``stub-break``         (streamed) two chunks, then the connection drops
=====================  =========================================================

Usage is ``prompt = len(body) // 2`` tokens (never below a chars-based estimate of
the same body) and ``output = 7``, so tests can predict the ledger's anchor.
``serve_in_thread(app)`` runs any ASGI app on 127.0.0.1 and gives its URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

__all__ = [
    "OUTPUT_TOKENS",
    "ReceivedCall",
    "StubProvider",
    "free_port",
    "prompt_tokens",
    "serve_in_thread",
    "stub_app",
]

OUTPUT_TOKENS: Final = 7
"""Output tokens every stub answer reports."""


@dataclass(frozen=True, slots=True)
class ReceivedCall:
    """One call as the stub received it."""

    path: str
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        """The body decoded."""
        return json.loads(self.body)


def prompt_tokens(raw: bytes) -> int:
    """The prompt tokens the stub reports for a body."""
    return max(1, len(raw) // 2)


class _Asked(NamedTuple):
    """A call a route answers: its bytes and body, its model, and what to answer."""

    raw: bytes
    body: dict[str, Any]
    model: str
    call: dict[str, Any] | None
    text: str


@dataclass
class StubProvider:
    """The stub's state: calls received, and knobs for the slow and chunked answers.

    ``gate``: when given, a stream stops after its first event until the gate is set.
    """

    slow_seconds: float = 3.0
    chunk_delay_seconds: float = 0.0
    gate: threading.Event | None = None
    keep_calls: bool = True
    calls: list[ReceivedCall] = field(default_factory=list)

    def app(self) -> Starlette:
        """The ASGI app serving the three provider routes."""
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/responses", self._responses, methods=["POST"]),
                Route("/v1/messages", self._messages, methods=["POST"]),
            ]
        )

    async def _received(self, request: Request) -> tuple[bytes, dict[str, Any]]:
        raw = await request.body()
        if self.keep_calls:  # a load run would otherwise keep every body it was sent
            self.calls.append(ReceivedCall(request.url.path, dict(request.headers), raw))
        return raw, json.loads(raw)

    async def _asked(self, request: Request, shape: str, format: str) -> _Asked | Response:
        """What every route starts with: the call kept, its body, model, the tool call
        to answer with (``stub-tool``) and the answer's text; or the failure the model
        asks for, in the route's error ``shape``."""
        raw, body = await self._received(request)
        model = str(body.get("model", ""))
        failed = await self._failure(model, shape)
        if failed is not None:
            return failed
        return _Asked(raw, body, model, _tool_call(body, format), _answer_text(raw))

    async def _failure(self, model: str, shape: str) -> Response | None:
        if model == "stub-slow":
            await asyncio.sleep(self.slow_seconds)
        elif model == "stub-500-html":
            return Response(
                "<html><body>502 Bad Gateway</body></html>", 500, media_type="text/html"
            )
        elif model == "stub-500-json":
            return JSONResponse(_error(shape, "api_error", "stub overloaded"), 500)
        elif model == "stub-401":
            return JSONResponse(_error(shape, "authentication_error", "bad key"), 401)
        elif model == "stub-malformed":
            return Response('{"choices": [', 200, media_type="application/json")
        return None

    async def _chat(self, request: Request) -> Response:
        asked = await self._asked(request, "openai", "openai")
        if isinstance(asked, Response):
            return asked
        raw, body, model, call, text = asked
        usage = {
            "prompt_tokens": prompt_tokens(raw),
            "completion_tokens": OUTPUT_TOKENS,
            "total_tokens": prompt_tokens(raw) + OUTPUT_TOKENS,
            "prompt_tokens_details": {"cached_tokens": 0},
        }
        if body.get("stream"):
            include = bool((body.get("stream_options") or {}).get("include_usage"))
            events = _chat_stream(model, text, call, usage if include else None)
            return self._stream(events, model)
        message: dict[str, Any] = {"role": "assistant", "content": None if call else text}
        if call:
            message["tool_calls"] = [call]
        answer = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}
            ],
            "usage": usage,
        }
        return JSONResponse(answer)

    async def _messages(self, request: Request) -> Response:
        asked = await self._asked(request, "anthropic", "anthropic")
        if isinstance(asked, Response):
            return asked
        raw, body, model, call, text = asked
        usage = {
            "input_tokens": prompt_tokens(raw),
            "output_tokens": OUTPUT_TOKENS,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
        content = [call] if call else [{"type": "text", "text": text}]
        message = {
            "id": "msg_stub",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "tool_use" if call else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }
        if body.get("stream"):
            return self._stream(_anthropic_stream(message), model)
        return JSONResponse(message)

    async def _responses(self, request: Request) -> Response:
        asked = await self._asked(request, "openai", "openai-responses")
        if isinstance(asked, Response):
            return asked
        raw, body, model, call, text = asked
        output: list[dict[str, Any]] = (
            [call]
            if call
            else [
                {
                    "type": "message",
                    "id": "msg_stub",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ]
        )
        response = {
            "id": "resp_stub",
            "object": "response",
            "created_at": 0,
            "model": model,
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": prompt_tokens(raw),
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": OUTPUT_TOKENS,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": prompt_tokens(raw) + OUTPUT_TOKENS,
            },
        }
        if body.get("stream"):
            events = [
                (
                    "response.created",
                    {
                        "type": "response.created",
                        "response": {**response, "status": "in_progress", "output": []},
                    },
                ),
                ("response.completed", {"type": "response.completed", "response": response}),
            ]
            return self._stream(_named(events), model)
        return JSONResponse(response)

    def _stream(self, events: list[str], model: str) -> StreamingResponse:
        delay, gate = self.chunk_delay_seconds, self.gate

        async def chunks() -> AsyncIterator[bytes]:
            for index, event in enumerate(events):
                if gate is not None and index == 1:
                    # Hold the rest of the stream until the client has seen the first event.
                    await asyncio.to_thread(gate.wait, 10)
                if model == "stub-break" and index == 2:
                    raise ConnectionResetError("stub: the stream breaks here")
                if delay:
                    await asyncio.sleep(delay)
                yield event.encode("utf-8")

        return StreamingResponse(chunks(), media_type="text/event-stream")


def _answer_text(raw: bytes) -> str:
    # Fixed by the body alone, so a call sent direct and through the proxy get the
    # same bytes back.
    return f"stub answer {hashlib.sha256(raw).hexdigest()[:12]}"


def _error(shape: str, kind: str, message: str) -> dict[str, Any]:
    if shape == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _tool_call(body: Mapping[str, Any], shape: str) -> dict[str, Any] | None:
    if body.get("model") != "stub-tool" or not body.get("tools"):
        return None
    tool = body["tools"][0]
    name = tool.get("name") or (tool.get("function") or {}).get("name") or "tool"
    if shape == "anthropic":
        return {"type": "tool_use", "id": "toolu_stub", "name": name, "input": {"path": "a.py"}}
    if shape == "openai-responses":
        return {
            "type": "function_call",
            "id": "fc_stub",
            "call_id": "call_stub",
            "name": name,
            "arguments": '{"path": "a.py"}',
            "status": "completed",
        }
    return {
        "id": "call_stub",
        "type": "function",
        "function": {"name": name, "arguments": '{"path": "a.py"}'},
    }


def _data(payload: Any) -> str:
    return f"data: {json.dumps(payload)}\n\n"


def _named(events: list[tuple[str, Any]]) -> list[str]:
    return [f"event: {name}\n{_data(payload)}" for name, payload in events]


def _chat_stream(
    model: str, text: str, call: Mapping[str, Any] | None, usage: Mapping[str, Any] | None
) -> list[str]:
    def chunk(delta: Mapping[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [choice],
        }

    events = [_data(chunk({"role": "assistant", "content": ""}))]
    if call:
        function = call["function"]
        first = {
            "index": 0,
            "id": call["id"],
            "type": "function",
            "function": {"name": function["name"], "arguments": ""},
        }
        events.append(_data(chunk({"tool_calls": [first]})))
        half = len(function["arguments"]) // 2
        for part in (function["arguments"][:half], function["arguments"][half:]):
            events.append(
                _data(chunk({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}))
            )
        events.append(_data(chunk({}, "tool_calls")))
    else:
        words = text.split(" ")
        events += [_data(chunk({"content": w if i == 0 else " " + w})) for i, w in enumerate(words)]
        events.append(_data(chunk({}, "stop")))
    if usage is not None:
        events.append(
            _data(
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
        )
    events.append("data: [DONE]\n\n")
    return events


def _anthropic_stream(message: Mapping[str, Any]) -> list[str]:
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[tuple[str, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            opened = {**block, "input": {}}
            arguments = json.dumps(block["input"])
            half = len(arguments) // 2
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in (arguments[:half], arguments[half:])
            ]
        else:
            opened = {"type": "text", "text": ""}
            words = block["text"].split(" ")
            deltas = [
                {"type": "text_delta", "text": w if i == 0 else " " + w}
                for i, w in enumerate(words)
            ]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            )
        )
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return _named(events)


def stub_app() -> Starlette:
    """A fresh stub's app, for ``uvicorn ctxbudget.testing.provider:stub_app --factory``."""
    return StubProvider(keep_calls=False).app()


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on (right now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def serve_in_thread(app: Any, port: int | None = None) -> Iterator[str]:
    """Run ``app`` with uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    import uvicorn

    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port or free_port(),
        log_level="warning",
        timeout_graceful_shutdown=1,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the server thread stopped before it started")
        threading.Event().wait(0.01)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(10)
