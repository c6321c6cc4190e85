"""What the proxy knows of each provider API: its route, its answers and its usage.

A dialect is keyed by the request format name (``ctxbudget.formats``) and says
where the route lives, which upstream it goes to, how errors look, how to find
the assistant's message and the usage in a plain or a streamed answer, and how
the usage maps onto the ledger's buckets (``input_tokens`` uncached,
``cache_read_tokens``, ``cache_write_tokens``, ``output_tokens``,
``reasoning_tokens``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Protocol

from ctxbudget.content import Message, TextBlock
from ctxbudget.errors import FormatError
from ctxbudget.formats import Request, parse_request
from ctxbudget.server.mirror import Answer, message_units
from ctxbudget.server.provider_errors import ErrorShape
from ctxbudget.server.sse import ServerEvent

__all__ = [
    "DIALECTS",
    "Dialect",
    "StreamCollector",
    "answer_of",
    "request_header",
]


class StreamCollector(Protocol):
    """Follows a streamed answer event by event."""

    def take(self, event: ServerEvent) -> None: ...

    @property
    def complete(self) -> bool:
        """True once the stream said it finished."""
        ...

    def result(self) -> tuple[list[Any], Mapping[str, Any] | None]:
        """The answer's provider items and its raw usage object."""
        ...


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _openai_chat_usage(usage: Mapping[str, Any]) -> dict[str, int] | None:
    prompt, output = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
    if prompt is None or output is None:
        return None
    cached = _int((usage.get("prompt_tokens_details") or {}).get("cached_tokens")) or 0
    out = {"input_tokens": max(0, prompt - cached), "output_tokens": output}
    out["cache_read_tokens"] = min(cached, prompt)
    reasoning = _int((usage.get("completion_tokens_details") or {}).get("reasoning_tokens"))
    if reasoning is not None:
        out["reasoning_tokens"] = reasoning
    return out


def _openai_responses_usage(usage: Mapping[str, Any]) -> dict[str, int] | None:
    prompt, output = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
    if prompt is None or output is None:
        return None
    cached = _int((usage.get("input_tokens_details") or {}).get("cached_tokens")) or 0
    out = {"input_tokens": max(0, prompt - cached), "output_tokens": output}
    out["cache_read_tokens"] = min(cached, prompt)
    reasoning = _int((usage.get("output_tokens_details") or {}).get("reasoning_tokens"))
    if reasoning is not None:
        out["reasoning_tokens"] = reasoning
    return out


def _anthropic_usage(usage: Mapping[str, Any]) -> dict[str, int] | None:
    uncached, output = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
    if uncached is None or output is None:
        return None
    out = {"input_tokens": uncached, "output_tokens": output}
    for theirs, ours in (
        ("cache_read_input_tokens", "cache_read_tokens"),
        ("cache_creation_input_tokens", "cache_write_tokens"),
    ):
        value = _int(usage.get(theirs))
        if value is not None:
            out[ours] = value
    return out


# -- streamed answers -------------------------------------------------------------------------


@dataclass
class _OpenAIChatStream:
    text: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    usage: Mapping[str, Any] | None = None
    done: bool = False

    def take(self, event: ServerEvent) -> None:
        if event.raw.strip() == "[DONE]":
            self.done = True
            return
        data = event.data
        if not isinstance(data, Mapping):
            return
        if isinstance(data.get("usage"), Mapping):
            self.usage = data["usage"]
        for choice in data.get("choices") or ():
            if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
                self._delta(choice.get("delta") or {})

    def _delta(self, delta: Mapping[str, Any]) -> None:
        if isinstance(delta.get("content"), str):
            self.text.append(delta["content"])
        for call in delta.get("tool_calls") or ():
            slot = self.calls.setdefault(
                int(call.get("index", 0)),
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            slot["id"] = call.get("id") or slot["id"]
            function = call.get("function") or {}
            slot["function"]["name"] += function.get("name") or ""
            slot["function"]["arguments"] += function.get("arguments") or ""

    @property
    def complete(self) -> bool:
        return self.done

    def result(self) -> tuple[list[Any], Mapping[str, Any] | None]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text) or None}
        if self.calls:
            message["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        elif message["content"] is None:
            message["content"] = ""
        return [message], self.usage


@dataclass
class _AnthropicStream:
    blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    partial_json: dict[int, list[str]] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    done: bool = False

    def take(self, event: ServerEvent) -> None:
        data = event.data
        if not isinstance(data, Mapping):
            return
        kind = data.get("type")
        if kind == "message_start":
            self.usage.update((data.get("message") or {}).get("usage") or {})
        elif kind == "content_block_start":
            self.blocks[int(data.get("index", 0))] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(int(data.get("index", 0)), data.get("delta") or {})
        elif kind == "message_delta":
            self.usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.done = True

    def _delta(self, index: int, delta: Mapping[str, Any]) -> None:
        block = self.blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + str(delta.get("text", ""))
        elif kind == "input_json_delta":
            self.partial_json.setdefault(index, []).append(str(delta.get("partial_json", "")))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))

    @property
    def complete(self) -> bool:
        return self.done

    def result(self) -> tuple[list[Any], Mapping[str, Any] | None]:
        content = []
        for index in sorted(self.blocks):
            block = dict(self.blocks[index])
            if index in self.partial_json:
                text = "".join(self.partial_json[index])
                block["input"] = json.loads(text) if text.strip() else {}
            content.append(block)
        return [{"role": "assistant", "content": content}], self.usage or None


@dataclass
class _ResponsesStream:
    response: Mapping[str, Any] | None = None

    def take(self, event: ServerEvent) -> None:
        data = event.data
        if isinstance(data, Mapping) and data.get("type") == "response.completed":
            response = data.get("response")
            self.response = response if isinstance(response, Mapping) else None

    @property
    def complete(self) -> bool:
        return self.response is not None

    def result(self) -> tuple[list[Any], Mapping[str, Any] | None]:
        response = self.response or {}
        return list(response.get("output") or ()), response.get("usage")


# -- plain answers and the parse of the assistant's message -----------------------------------


def _chat_items(body: Mapping[str, Any]) -> list[Any]:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise FormatError("the answer has no choices[0]")
    return [choices[0].get("message") or {}]


def _anthropic_items(body: Mapping[str, Any]) -> list[Any]:
    return [{"role": "assistant", "content": body.get("content") or []}]


def _responses_items(body: Mapping[str, Any]) -> list[Any]:
    return list(body.get("output") or ())


def _chat_wrap(items: Sequence[Any]) -> dict[str, Any]:
    # A format's parser insists every tool call has its result (the pair rule), so
    # each call in the answer gets an empty result here, dropped again after parsing.
    results = [
        {"role": "tool", "tool_call_id": call.get("id", ""), "content": ""}
        for item in items
        for call in (item.get("tool_calls") or ())
    ]
    return {"model": "answer", "messages": [*items, *results]}


def _anthropic_wrap(items: Sequence[Any]) -> dict[str, Any]:
    uses = [b for item in items for b in item.get("content") or () if b.get("type") == "tool_use"]
    messages = list(items)
    if uses:
        results = [
            {"type": "tool_result", "tool_use_id": b.get("id", ""), "content": ""} for b in uses
        ]
        messages.append({"role": "user", "content": results})
    return {"model": "answer", "max_tokens": 1, "messages": messages}


def _responses_wrap(items: Sequence[Any]) -> dict[str, Any]:
    outputs = [
        {"type": "function_call_output", "call_id": item.get("call_id", ""), "output": ""}
        for item in items
        if isinstance(item, Mapping) and item.get("type") == "function_call"
    ]
    return {"model": "answer", "input": [*items, *outputs]}


@dataclass(frozen=True, slots=True)
class Dialect:
    """One provider API as the proxy serves it."""

    format: str
    path: str
    upstream: str
    provider: str
    error_shape: ErrorShape
    answer_items: Callable[[Mapping[str, Any]], list[Any]]
    wrap_items: Callable[[Sequence[Any]], dict[str, Any]]
    normalize_usage: Callable[[Mapping[str, Any]], dict[str, int] | None]
    new_stream: Callable[[], StreamCollector]
    stop_key: str


DIALECTS: Final[Mapping[str, Dialect]] = MappingProxyType(
    {
        d.format: d
        for d in (
            Dialect(
                "openai",
                "/v1/chat/completions",
                "openai",
                "openai",
                "openai",
                _chat_items,
                _chat_wrap,
                _openai_chat_usage,
                _OpenAIChatStream,
                "stop",
            ),
            Dialect(
                "openai-responses",
                "/v1/responses",
                "openai",
                "openai",
                "openai",
                _responses_items,
                _responses_wrap,
                _openai_responses_usage,
                _ResponsesStream,
                "stop",
            ),
            Dialect(
                "anthropic",
                "/v1/messages",
                "anthropic",
                "anthropic",
                "anthropic",
                _anthropic_items,
                _anthropic_wrap,
                _anthropic_usage,
                _AnthropicStream,
                "stop_sequences",
            ),
        )
    }
)
"""Every dialect by request format name."""


def answer_of(
    dialect: Dialect, items: Sequence[Any], usage: Mapping[str, Any] | None, model: Any
) -> Answer:
    """The answer as ledger units; ``FormatError`` when the items cannot be parsed."""
    if not all(isinstance(item, Mapping) for item in items):
        raise FormatError("the answer's items are not JSON objects")
    parsed = parse_request(dialect.wrap_items(items), dialect.format)
    messages = [m for m in parsed.messages() if m.role == "assistant"]
    normalized = dialect.normalize_usage(usage) if isinstance(usage, Mapping) else None
    provenance = {"provider": dialect.provider, "model": model if isinstance(model, str) else ""}
    return Answer(tuple(message_units(messages)), normalized, provenance)


def _system_text(messages: Sequence[Message]) -> str:
    return "\n\n".join(
        block.text for m in messages for block in m.content if isinstance(block, TextBlock)
    )


def request_header(dialect: Dialect, request: Request) -> dict[str, Any]:
    """The ``request/header`` ``header`` of a request: its envelope."""
    body = request.body
    max_tokens = next(
        (
            body[k]
            for k in ("max_tokens", "max_completion_tokens", "max_output_tokens")
            if k in body
        ),
        None,
    )
    stop = body.get(dialect.stop_key)
    config = {
        "provider": dialect.provider,
        "model": body.get("model"),
        "temperature": body.get("temperature"),
        "max_tokens": max_tokens,
        "stop": [stop] if isinstance(stop, str) else stop,
    }
    header: dict[str, Any] = {"config": config}
    system = _system_text([t.message for t in request.system])
    if system:
        header["system"] = system
    if request.tools:
        header["tools"] = json.loads(json.dumps(list(request.tools)))
    return header
