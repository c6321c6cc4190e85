"""Content blocks to and from the JSON the ledger stores (snake_case keys).

``{"type": "text", "text": …}``, ``{"type": "reasoning", "text": …}``,
``{"type": "tool-call", "id", "name", "arguments"}``,
``{"type": "tool-result", "tool_call_id", "content": [...], "is_error"}``,
``{"type": "image", …}``; any other block is kept as it came.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ctxbudget.content.blocks import (
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

__all__ = [
    "ContentShapeError",
    "block_from_json",
    "block_to_json",
    "blocks_from_json",
    "blocks_to_json",
    "message_from_json",
    "message_to_json",
]


class ContentShapeError(ValueError):
    """A block whose known type has fields of the wrong shape."""


def _str(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key, "")
    if not isinstance(value, str):
        raise ContentShapeError(
            f"{obj.get('type')!r} block field {key!r} must be a string, not {type(value).__name__}"
        )
    return value


def block_from_json(obj: Mapping[str, Any]) -> Block:
    """One block from its JSON form; unknown types are kept as ``UnknownBlock``."""
    if not isinstance(obj, Mapping):
        raise ContentShapeError(f"a content block must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "text":
        return TextBlock(_str(obj, "text"))
    if kind == "reasoning":
        signature = obj.get("signature")
        return ReasoningBlock(_str(obj, "text"), signature if isinstance(signature, str) else None)
    if kind == "tool-call":
        return ToolCallBlock(_str(obj, "id"), _str(obj, "name"), _str(obj, "arguments"))
    if kind == "tool-result":
        inner = obj.get("content", [])
        if isinstance(inner, str):
            inner = [{"type": "text", "text": inner}]
        if not isinstance(inner, Sequence):
            raise ContentShapeError("'tool-result' block field 'content' must be a list of blocks")
        return ToolResultBlock(
            _str(obj, "tool_call_id"), blocks_from_json(inner), bool(obj.get("is_error", False))
        )
    if kind == "image":
        return ImageBlock(dict(obj))
    return UnknownBlock(dict(obj))


def blocks_from_json(items: Iterable[Mapping[str, Any]]) -> tuple[Block, ...]:
    """A tuple of blocks from a JSON list."""
    return tuple(block_from_json(item) for item in items)


def block_to_json(block: Block) -> dict[str, Any]:
    """The JSON form of one block."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ReasoningBlock):
        out: dict[str, Any] = {"type": "reasoning", "text": block.text}
        if block.signature is not None:
            out["signature"] = block.signature
        return out
    if isinstance(block, ToolCallBlock):
        return {
            "type": "tool-call",
            "id": block.id,
            "name": block.name,
            "arguments": block.arguments,
        }
    if isinstance(block, ToolResultBlock):
        return {
            "type": "tool-result",
            "tool_call_id": block.tool_call_id,
            "content": blocks_to_json(block.content),
            "is_error": block.is_error,
        }
    return dict(block.data)


def blocks_to_json(blocks: Iterable[Block]) -> list[dict[str, Any]]:
    """The JSON list form of blocks."""
    return [block_to_json(b) for b in blocks]


def message_from_json(obj: Mapping[str, Any]) -> Message:
    """``{"role": …, "content": [...]}`` to a ``Message`` (string content becomes text)."""
    content = obj.get("content", [])
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    return Message(str(obj.get("role", "")), blocks_from_json(content))


def message_to_json(message: Message) -> dict[str, Any]:
    """The JSON form of a message."""
    return {"role": message.role, "content": blocks_to_json(message.content)}
