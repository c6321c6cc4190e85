"""Reusing parsed turns across requests while their messages are unchanged.

An agent re-sends its whole history with every request, so the same message
dicts are parsed again and again. When the very same dict still holds the very
same values (checked by identity, which is cheap and exact), the turn parsed
last time is the answer: parsing is a pure function of those values.

Only messages whose insides can be checked that way are remembered: values that
are strings, numbers, bools or None, and lists of dicts holding only such values
(Anthropic content blocks, OpenAI content parts). Anything nested deeper (a
``tool_use`` input, a ``cache_control`` dict) could change in place without a
sign on the outside, so such a message is parsed every time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from ctxbudget.formats.request import Turn

__all__ = [
    "ANTHROPIC_TURNS",
    "OPENAI_TURNS",
    "FlatTurnMemo",
    "forget_parsed_turns",
]

_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MISSING: Final = object()

Items: TypeAlias = tuple[tuple[str, Any], ...]
Parts: TypeAlias = tuple[tuple[Mapping[str, Any], Items], ...]
# What a message looked like when remembered: each key with its value, and for a
# list of flat dicts also each dict with its items.
Snapshot: TypeAlias = tuple[tuple[str, Any, Parts | None], ...]


def _flat_items(value: Any) -> Items | None:
    if type(value) is not dict:
        return None
    items = tuple(value.items())
    return items if all(type(v) in _SCALARS for _, v in items) else None


def _snapshot(raw: Mapping[str, Any]) -> Snapshot | None:
    entries: list[tuple[str, Any, Parts | None]] = []
    for key, value in raw.items():
        if type(value) in _SCALARS:
            entries.append((key, value, None))
        elif type(value) is list:
            parts = []
            for part in value:
                items = _flat_items(part)
                if items is None:
                    return None
                parts.append((part, items))
            entries.append((key, value, tuple(parts)))
        else:
            return None
    return tuple(entries)


def _same_items(obj: Mapping[str, Any], items: Items) -> bool:
    if len(obj) != len(items):
        return False
    return all(obj.get(key, _MISSING) is value for key, value in items)


def _unchanged(raw: Mapping[str, Any], snapshot: Snapshot) -> bool:
    if len(raw) != len(snapshot):
        return False
    for key, value, parts in snapshot:
        if raw.get(key, _MISSING) is not value:
            return False
        if parts is not None:
            if len(value) != len(parts):
                return False
            for index, (part, items) in enumerate(parts):
                if value[index] is not part or not _same_items(part, items):
                    return False
    return True


class FlatTurnMemo:
    """Parsed turns keyed by the message dict itself (bounded).

    It holds a reference to each remembered dict and to everything its check
    compares, so no id or identity can be reused by another object while the
    entry lives; ``limit`` bounds what it pins.
    """

    __slots__ = ("_turns", "limit")

    def __init__(self, limit: int = 8192) -> None:
        self._turns: dict[int, tuple[Mapping[str, Any], Snapshot, Turn]] = {}
        self.limit = limit

    def get(self, raw: Mapping[str, Any]) -> Turn | None:
        """The turn parsed from ``raw`` before, if ``raw`` still holds the same values."""
        entry = self._turns.get(id(raw))
        if entry is None or entry[0] is not raw or not _unchanged(raw, entry[1]):
            return None
        return entry[2]

    def put(self, raw: Mapping[str, Any], turn: Turn) -> None:
        """Remember ``turn`` as the parse of ``raw`` when ``raw`` can be checked later."""
        snapshot = _snapshot(raw)
        if snapshot is None:
            return
        if len(self._turns) >= self.limit:
            self._turns.clear()  # crude, but bounded and O(1) amortised
        self._turns[id(raw)] = (raw, snapshot, turn)

    def clear(self) -> None:
        """Forget every remembered turn."""
        self._turns.clear()


# One memo per format: the same dict can parse differently (or not at all) in the other.
OPENAI_TURNS: Final = FlatTurnMemo()
"""Turns the OpenAI parser remembers."""
ANTHROPIC_TURNS: Final = FlatTurnMemo()
"""Turns the Anthropic parser remembers."""


def forget_parsed_turns() -> None:
    """Empty both formats' memos (for cold-start measurements and tests)."""
    OPENAI_TURNS.clear()
    ANTHROPIC_TURNS.clear()
