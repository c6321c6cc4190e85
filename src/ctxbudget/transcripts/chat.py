"""Chat JSON: an OpenAI Chat Completions or Anthropic Messages request body.

A JSON array of messages reads as the body holding them. The body is parsed by
the library's request formats (``ctxbudget.formats``), so
its system prompt and tools become the envelope and its messages the session.
Every assistant message is one call; a ``usage`` object on it (as proxies and
LiteLLM logs write it) is its recorded usage, in that provider's shape. An
optional ``response`` key holds the provider's answer to the body (a Chat
Completion or a Messages response, with its ``usage``): it is the last call.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxbudget.content import TextBlock, ToolResultBlock, blocks_to_json
from ctxbudget.errors import FormatError
from ctxbudget.formats import Request, parse_request
from ctxbudget.transcripts.blocks import anthropic_blocks, openai_message_blocks
from ctxbudget.transcripts.records import Record, Transcript
from ctxbudget.transcripts.session import ImportedSession, SessionBuilder
from ctxbudget.transcripts.usage import anthropic_usage, openai_usage

__all__ = ["chat_format_of", "read_chat"]

_ANTHROPIC_BLOCKS: Final = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})
_OPENAI_ROLES: Final = frozenset({"system", "developer", "tool", "function"})


def _body(records: tuple[Record, ...], lines: bool) -> Mapping[str, Any] | None:
    """The request body the records hold: one object with ``messages``, or a JSON
    array of messages (a conversation saved without its request around it)."""
    if lines or not records:
        return None
    first = records[0].value
    if len(records) == 1 and isinstance(first, Mapping) and "messages" in first:
        return first
    if all(isinstance(r.value, Mapping) and "role" in r.value for r in records):
        return {"messages": [r.value for r in records]}
    return None


def chat_format_of(transcript: Transcript) -> str | None:
    """``"openai"`` or ``"anthropic"`` for a request body that shows which, ``"chat"``
    for one that could be either, ``None`` for anything else."""
    body = _body(transcript.records, transcript.lines)
    if body is None or not isinstance(body.get("messages"), list):
        return None
    messages = [m for m in body["messages"] if isinstance(m, Mapping)]
    if "system" in body or any(_has_anthropic_blocks(m) for m in messages):
        return "anthropic"
    if any(m.get("role") in _OPENAI_ROLES or "tool_calls" in m for m in messages):
        return "openai"
    return "chat"


def _has_anthropic_blocks(message: Mapping[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(b, Mapping) and b.get("type") in _ANTHROPIC_BLOCKS for b in content
    )


def read_chat(transcript: Transcript, format: str) -> list[ImportedSession]:
    """The session of one request body in ``format`` (``openai`` or ``anthropic``)."""
    body = _body(transcript.records, transcript.lines)
    if body is None:
        raise transcript.fail(
            None, f"is not one {format} request body (a JSON object with 'messages')"
        )
    try:
        request = parse_request(body, format)
    except FormatError as exc:
        raise transcript.fail(None, str(exc)) from None
    model = str(body.get("model") or "unknown")
    builder = SessionBuilder(Path(transcript.path).stem, format, transcript.path, format)
    system = "\n\n".join(
        b.text for turn in request.system for b in turn.message.content if isinstance(b, TextBlock)
    )
    builder.envelope(system or None, request.tools)
    try:
        _turns(builder, request, model, format)
        response = body.get("response")
        if isinstance(response, Mapping):
            _response(builder, response, model, format)
    except ValueError as exc:
        raise transcript.fail(None, str(exc)) from None
    return [builder.build()]


def _turns(builder: SessionBuilder, request: Request, model: str, format: str) -> None:
    for index, turn in enumerate(request.turns):
        message = turn.message
        usage = turn.source.get("usage")
        if message.role == "assistant":
            recorded = _usage(usage, format) if isinstance(usage, Mapping) else None
            builder.call(f"message-{index}", model, blocks_to_json(message.content), recorded)
            continue
        others = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                inner = blocks_to_json(block.content)
                builder.tool_result(block.tool_call_id, inner, block.is_error)
            else:
                others.append(block)
        if others:
            kind = "user/message" if message.role == "user" else "context/message"
            builder.user(blocks_to_json(others), kind)


def _response(
    builder: SessionBuilder, response: Mapping[str, Any], model: str, format: str
) -> None:
    model = str(response.get("model") or model)
    usage = response.get("usage")
    recorded = _usage(usage, format) if isinstance(usage, Mapping) else None
    if format == "anthropic":
        blocks = anthropic_blocks(response.get("content", []))
    else:
        choices = response.get("choices") or [{}]
        blocks = openai_message_blocks(choices[0].get("message") or {})
    builder.call("response", model, blocks, recorded)


def _usage(usage: Mapping[str, Any], format: str) -> dict[str, int]:
    return anthropic_usage(usage) if format == "anthropic" else openai_usage(usage)
