"""Provider content as the ledger's content blocks (``ctxbudget.content`` JSON).

Transcripts hold single provider messages, often a response whose tool calls are
answered records later, so they are converted one message at a time here rather
than through the request parsers (which check a whole request's tool pairing).
The mapping is the request formats' own: ``tool_use`` and tool calls become
``tool-call`` blocks with the arguments as JSON text, ``thinking`` becomes
``reasoning``; blocks the library does not model are kept as they came.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxbudget.tokens import json_text

__all__ = [
    "BlockShapeError",
    "anthropic_blocks",
    "openai_message_blocks",
    "text_blocks",
    "tool_result_content",
]

Block = dict[str, Any]


class BlockShapeError(ValueError):
    """Content that is not the shape its provider writes."""


def text_blocks(text: str) -> list[Block]:
    """Plain text as one text block (none for an empty string)."""
    return [{"type": "text", "text": text}] if text else []


def anthropic_blocks(content: Any) -> list[Block]:
    """Anthropic message content (a string or a list of blocks) as ledger blocks."""
    if isinstance(content, str):
        return text_blocks(content)
    if not isinstance(content, list):
        raise BlockShapeError(f"message content is a {type(content).__name__}, not text or a list")
    return [_anthropic_block(block) for block in content]


def _anthropic_block(block: Any) -> Block:
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        raise BlockShapeError("a content block must be an object with a string 'type'")
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "text": _string(block, "text")}
    if kind == "thinking":
        out: Block = {"type": "reasoning", "text": _string(block, "thinking")}
        if isinstance(block.get("signature"), str):
            out["signature"] = block["signature"]
        return out
    if kind == "tool_use":
        arguments = block.get("input", {})
        return {
            "type": "tool-call",
            "id": _string(block, "id"),
            "name": _string(block, "name"),
            "arguments": arguments if isinstance(arguments, str) else json_text(arguments),
        }
    return dict(block)  # images, documents, redacted thinking, server tools: kept


def tool_result_content(content: Any) -> list[Block]:
    """The content of a tool result (a string or blocks) as ledger blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return text_blocks(content)
    return anthropic_blocks(content)


def openai_message_blocks(message: Mapping[str, Any]) -> list[Block]:
    """A Chat Completions assistant message (text and ``tool_calls``) as ledger blocks."""
    content = message.get("content")
    blocks: list[Block] = []
    if isinstance(content, str):
        blocks += text_blocks(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                blocks += text_blocks(_string(part, "text"))
            elif isinstance(part, Mapping):
                blocks.append(dict(part))
    elif content is not None:
        raise BlockShapeError(f"message content is a {type(content).__name__}, not text")
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping):
            raise BlockShapeError("a tool call must be an object with a 'function' object")
        arguments = function.get("arguments", "")
        blocks.append(
            {
                "type": "tool-call",
                "id": _string(call, "id"),
                "name": _string(function, "name"),
                "arguments": arguments if isinstance(arguments, str) else json_text(arguments),
            }
        )
    return blocks


def _string(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise BlockShapeError(f"{block.get('type', 'a')!r} block needs a string {key!r}")
    return value
