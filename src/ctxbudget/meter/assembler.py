"""Provider output rebuilt from its stream chunks (to price what the provider emitted).

Blocks come out in first-seen index order. ``block-end`` carries the authoritative
block and the first close wins; an unclosed block is assembled from its deltas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxbudget.content import Block, TextBlock, ToolCallBlock, block_from_json
from ctxbudget.content.blocks import ReasoningBlock

__all__ = ["assemble_blocks"]


@dataclass(slots=True)
class _Partial:
    kind: str | None = None
    text: list[str] = field(default_factory=list)
    call_id: str | None = None
    name: str | None = None
    closed: Block | None = None


def assemble_blocks(chunks: Iterable[Mapping[str, Any]]) -> tuple[Block, ...]:
    """The blocks a sequence of ``StreamChunk`` objects describes."""
    partials: dict[Any, _Partial] = {}
    for chunk in chunks:
        kind = chunk.get("type")
        if kind in ("usage", "finish"):
            continue
        partial = partials.setdefault(chunk.get("index"), _Partial())
        if partial.closed is not None:
            continue
        _feed(partial, kind, chunk)
    return tuple(b for index, p in partials.items() if (b := _finish(p, index)) is not None)


def _feed(partial: _Partial, kind: Any, chunk: Mapping[str, Any]) -> None:
    if kind == "block-start":
        partial.kind = partial.kind or str(chunk.get("block_type", ""))
    elif kind in ("text-delta", "reasoning-delta"):
        partial.kind = partial.kind or kind.removesuffix("-delta")
        partial.text.append(str(chunk.get("text", "")))
    elif kind == "tool-call-delta":
        partial.kind = partial.kind or "tool-call"
        partial.call_id = str(chunk.get("id", partial.call_id or ""))
        if chunk.get("name") is not None:
            partial.name = str(chunk["name"])
        partial.text.append(str(chunk.get("arguments_delta", "")))
    elif kind == "block-end":
        partial.closed = block_from_json(chunk.get("block", {}))


def _finish(partial: _Partial, index: Any) -> Block | None:
    if partial.closed is not None:
        return partial.closed
    text = "".join(partial.text)
    if partial.kind == "text":
        return TextBlock(text)
    if partial.kind == "reasoning":
        return ReasoningBlock(text)
    if partial.kind == "tool-call":
        return ToolCallBlock(partial.call_id or f"call-{index}", partial.name or "", text)
    return None
