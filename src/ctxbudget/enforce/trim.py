"""Stage 1, ``turn_trim``: long history texts keep their head and tail.

The least lossy cut: the start of a text usually says what it is and the end
what came of it. Slicing is by code point (Python ``str``), so no CJK character
or astral character is cut in half. The pending turn is never trimmed, nor are
system messages, reasoning blocks (their signatures would break), tool-call
arguments (they must stay valid JSON), images or unknown blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ctxbudget.content import Block, Message, TextBlock, ToolResultBlock
from ctxbudget.formats import Request, Turn

__all__ = [
    "TRIM_MARKER",
    "TrimRule",
    "trim_text",
    "turn_trim",
]

TRIM_MARKER: Final = "…\n[trimmed {count} chars]\n…"
"""Put between the kept head and tail; ``…`` is U+2026 (the reference's exact text)."""

_TRIMMED_ROLES: Final = frozenset({"user", "assistant", "tool"})


@dataclass(frozen=True, slots=True)
class TrimRule:
    """Texts longer than ``threshold`` characters keep ``head`` + ``tail`` characters."""

    threshold: int
    head: int
    tail: int


def trim_text(text: str, rule: TrimRule) -> str:
    """``text`` with its middle replaced by the marker; unchanged unless that is shorter."""
    length = len(text)
    if length <= rule.threshold:
        return text
    dropped = length - rule.head - rule.tail
    if dropped <= 0:
        return text
    trimmed = text[: rule.head] + TRIM_MARKER.format(count=dropped) + text[length - rule.tail :]
    # The marker costs characters too; a trim must never make a text longer.
    return trimmed if len(trimmed) < length else text


def _trim_block(block: Block, rule: TrimRule) -> Block:
    if isinstance(block, TextBlock):
        trimmed = trim_text(block.text, rule)
        return block if trimmed is block.text else TextBlock(trimmed)
    if isinstance(block, ToolResultBlock):
        inner = tuple(_trim_block(b, rule) for b in block.content)
        if all(new is old for new, old in zip(inner, block.content, strict=True)):
            return block
        return ToolResultBlock(block.tool_call_id, inner, block.is_error)
    return block


def _trim_turn(turn: Turn, rule: TrimRule) -> Turn:
    if turn.message.role not in _TRIMMED_ROLES:
        return turn
    blocks = tuple(_trim_block(b, rule) for b in turn.message.content)
    if all(new is old for new, old in zip(blocks, turn.message.content, strict=True)):
        return turn
    return turn.edited(Message(turn.message.role, blocks))


def turn_trim(request: Request, rule: TrimRule) -> Request | None:
    """``request`` with every long history text trimmed, or ``None`` if none is long."""
    conversation = tuple(_trim_turn(turn, rule) for turn in request.conversation)
    if all(new is old for new, old in zip(conversation, request.conversation, strict=True)):
        return None
    return Request(
        request.format, request.system, request.tools, conversation, request.pending, request.body
    )
