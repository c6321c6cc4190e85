"""Stage 1, ``turn_trim``: long history texts keep their head and tail.

The least lossy cut: the start of a text usually says what it is and the end
what came of it. Turns are trimmed one at a time, the oldest first, and the
stage stops as soon as the request fits, so a request that trimming two old
tool outputs brings within budget loses nothing else; the last turn trimmed
then gets back as much of its head and tail as still fits (not under cost
pressure). The task (the first user message) is trimmed last of all, after the
most recent turns.

Slicing is by code point (Python ``str``), so no CJK or astral character is cut
in half. The pending turn is never trimmed, nor are system messages, reasoning
blocks (their signatures would break), tool-call arguments (they must stay
valid JSON), images or unknown blocks.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ctxbudget.content import Block, Message, TextBlock, ToolResultBlock
from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.stage import StageContext, StageFlow, no_calls
from ctxbudget.formats import Request, RequestCache, Turn

__all__ = [
    "TRIM_MARKER",
    "TrimRule",
    "TurnTrim",
    "trim_order",
    "trim_text",
]

TRIM_MARKER: Final = "…\n[trimmed {count} chars]\n…"
"""Put between the kept head and tail; ``…`` is U+2026 (the seed's marker text)."""

_TRIMMED_ROLES: Final = frozenset({"user", "assistant", "tool"})


@dataclass(frozen=True, slots=True)
class TrimRule:
    """Texts longer than ``threshold`` characters keep a head and a tail.

    ``fit_within_threshold`` false: the head is ``head`` and the tail ``tail``
    characters. True (cost pressure): head, marker and tail together fit within
    ``threshold`` characters, head and tail in the proportion ``head``:``tail``,
    so every text over the threshold gets shorter.
    """

    threshold: int
    head: int
    tail: int
    fit_within_threshold: bool = False

    @classmethod
    def for_config(cls, config: BudgetConfig, cost_pressure: bool) -> TrimRule:
        """The rule ``config`` sets, with or without cost pressure."""
        if cost_pressure:
            return cls(
                config.turn_trim_chars_under_pressure,
                config.turn_trim_head_chars_under_pressure,
                config.turn_trim_tail_chars_under_pressure,
                fit_within_threshold=True,
            )
        return cls(config.turn_trim_chars, config.turn_trim_head_chars, config.turn_trim_tail_chars)

    def kept(self, length: int) -> tuple[int, int]:
        """(head, tail) characters kept of a text of ``length`` characters."""
        if not self.fit_within_threshold:
            return self.head, self.tail
        # The marker's count is at most ``length``: its text is no longer than this.
        room = max(0, self.threshold - len(TRIM_MARKER.format(count=length)))
        parts = self.head + self.tail
        head = room * self.head // parts if parts else 0
        return head, (room - head) if parts else 0


def trim_text(text: str, rule: TrimRule) -> str:
    """``text`` with its middle replaced by the marker; unchanged unless that is shorter."""
    length = len(text)
    if length <= rule.threshold:
        return text
    head, tail = rule.kept(length)
    dropped = length - head - tail
    if dropped <= 0:
        return text
    trimmed = text[:head] + TRIM_MARKER.format(count=dropped) + text[length - tail :]
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


def _remembered_trim(turn: Turn, rule: TrimRule, cache: RequestCache) -> Turn:
    # Parsed turns are reused across requests, so a re-sent history is trimmed once.
    key = ("trim", id(turn), rule)
    entry = cache.get(key)
    if entry is not None and entry[0] is turn:  # type: ignore[index]
        return entry[1]  # type: ignore[index,no-any-return]
    result = _trim_turn(turn, rule)
    kept = sum(sys.getsizeof(b.text) for b in result.message.content if isinstance(b, TextBlock))
    cache.put(key, (turn, result), kept if result is not turn else 0)
    return result


def trim_order(conversation: Sequence[Turn]) -> list[int]:
    """The history turns in the order they are trimmed: oldest first, the task last."""
    order = list(range(len(conversation)))
    task = next((i for i, t in enumerate(conversation) if t.message.role == "user"), None)
    if task is not None:
        order.remove(task)
        order.append(task)
    return order


@dataclass(frozen=True, slots=True)
class TurnTrim:
    """``turn_trim``: trim long history texts, oldest first, until the request fits."""

    name: str = "turn_trim"

    def available(self, context: StageContext) -> bool:
        """Always."""
        return True

    def run(self, request: Request, context: StageContext) -> StageFlow:
        """The request with as few turns trimmed as fit, or ``None`` if none is long."""
        return no_calls(self.trim(request, context))

    def trim(self, request: Request, context: StageContext) -> Request | None:
        """``run`` without the flow wrapper (the stage asks the host for nothing)."""
        rule = TrimRule.for_config(context.config, context.cost_pressure)
        pricer = context.pricer
        tokens = pricer.segments(request).total
        turns = list(request.conversation)
        changed = False
        last = 0
        for index in trim_order(turns):
            if tokens <= context.budget:
                break
            old = turns[index]
            new = _remembered_trim(old, rule, context.cache)
            if new is old:
                continue
            tokens += pricer.message(new.message) - pricer.message(old.message)
            turns[index] = new
            changed = True
            last = index
        if not changed:
            return None
        if not context.cost_pressure and tokens < context.budget:
            # The last trim may have freed more than needed: give that turn back as
            # much of its head and tail as still fits. Not under cost pressure,
            # where every token saved is money saved.
            turns[last] = _widened(request.conversation[last], turns[last], rule, tokens, context)
        return request.with_conversation(tuple(turns))


def _widened(
    original: Turn, trimmed: Turn, rule: TrimRule, tokens: int, context: StageContext
) -> Turn:
    """``original`` trimmed to keep the most characters (head:tail as in ``rule``) with
    which the request still fits; ``trimmed`` when no wider trim fits."""
    pricer = context.pricer
    base = tokens - pricer.message(trimmed.message)
    longest = max(
        (len(text) for text in _texts(original.message.content)),
        default=0,
    )
    low, high = rule.head + rule.tail, longest
    best = trimmed
    parts = max(rule.head + rule.tail, 1)
    while high - low > 16:  # a few characters either way are not worth a count
        keep = (low + high) // 2
        head = keep * rule.head // parts
        wider = _trim_turn(original, TrimRule(rule.threshold, head, keep - head))
        if base + pricer.price_once(wider.message) <= context.budget:
            best, low = wider, keep
        else:
            high = keep
    return best


def _texts(blocks: tuple[Block, ...]) -> list[str]:
    texts: list[str] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            texts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            texts += _texts(block.content)
    return texts
