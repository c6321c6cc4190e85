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
    "forget_trims",
    "trim_text",
    "turn_trim",
]

TRIM_MARKER: Final = "…\n[trimmed {count} chars]\n…"
"""Put between the kept head and tail; ``…`` is U+2026 (the reference's exact text)."""

_TRIMMED_ROLES: Final = frozenset({"user", "assistant", "tool"})
_MEMO_LIMIT: Final = 8_192  # the parse memo keeps as many turns

# Trimmed turns by (id(turn), threshold, head, tail). Parsed turns are reused across
# requests (``formats.memo``), so a re-sent history is trimmed once, not every turn.
# Entries hold their turn, so an id is never reused while its entry lives.
_trimmed: dict[tuple[int, int, int, int], tuple[Turn, Turn]] = {}


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


def _trim_blocks(blocks: tuple[Block, ...], rule: TrimRule) -> tuple[Block, ...]:
    """``blocks`` with long texts trimmed; the very same tuple when none is long."""
    changed: list[Block] | None = None
    for index, block in enumerate(blocks):
        new = block
        if isinstance(block, TextBlock):
            if len(block.text) > rule.threshold:
                trimmed = trim_text(block.text, rule)
                new = block if trimmed is block.text else TextBlock(trimmed)
        elif isinstance(block, ToolResultBlock):
            inner = _trim_blocks(block.content, rule)
            if inner is not block.content:
                new = ToolResultBlock(block.tool_call_id, inner, block.is_error)
        if new is not block:
            changed = changed if changed is not None else list(blocks)
            changed[index] = new
    return blocks if changed is None else tuple(changed)


def _trim_turn(turn: Turn, rule: TrimRule) -> Turn:
    message = turn.message
    if message.role not in _TRIMMED_ROLES:
        return turn
    blocks = _trim_blocks(message.content, rule)
    return turn if blocks is message.content else turn.edited(Message(message.role, blocks))


def _remembered_trim(turn: Turn, rule: TrimRule) -> Turn:
    key = (id(turn), rule.threshold, rule.head, rule.tail)
    entry = _trimmed.get(key)
    if entry is not None and entry[0] is turn:
        return entry[1]
    result = _trim_turn(turn, rule)
    if len(_trimmed) >= _MEMO_LIMIT:
        _trimmed.clear()
    _trimmed[key] = (turn, result)
    return result


def forget_trims() -> None:
    """Empty the memo of trimmed turns (for cold-start measurements)."""
    _trimmed.clear()


def turn_trim(request: Request, rule: TrimRule) -> Request | None:
    """``request`` with every long history text trimmed, or ``None`` if none is long."""
    conversation = tuple(_remembered_trim(turn, rule) for turn in request.conversation)
    if all(new is old for new, old in zip(conversation, request.conversation, strict=True)):
        return None
    return Request(
        request.format, request.system, request.tools, conversation, request.pending, request.body
    )
