"""Reusing parsed turns across requests while their messages are unchanged.

An agent re-sends its whole history with every request, so the same message
dicts are parsed again and again. For a *flat* message (every value a string,
number, bool or None) the parse is a pure function of its values; if the very
same dict still holds the very same values (checked by identity, which is
cheap and exact), the turn parsed last time is the answer.

Messages holding lists or dicts are never remembered: their insides could have
been changed in place without any sign on the outside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ctxbudget.formats.request import Turn

__all__ = [
    "PARSED_TURNS",
    "FlatTurnMemo",
]

_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MISSING: Final = object()


class FlatTurnMemo:
    """Parsed turns of flat messages, keyed by the message dict itself (bounded).

    It holds a reference to each remembered dict, so an id can never be reused
    by another object while its entry lives; ``limit`` bounds what it pins.
    """

    __slots__ = ("_turns", "limit")

    def __init__(self, limit: int = 8192) -> None:
        self._turns: dict[int, tuple[Mapping[str, Any], tuple[tuple[str, Any], ...], Turn]] = {}
        self.limit = limit

    def get(self, raw: Mapping[str, Any]) -> Turn | None:
        """The turn parsed from ``raw`` before, if ``raw`` still holds the same values."""
        entry = self._turns.get(id(raw))
        if entry is None or entry[0] is not raw or len(raw) != len(entry[1]):
            return None
        for key, value in entry[1]:
            if raw.get(key, _MISSING) is not value:
                return None
        return entry[2]

    def clear(self) -> None:
        """Forget every remembered turn."""
        self._turns.clear()

    def put(self, raw: Mapping[str, Any], turn: Turn) -> None:
        """Remember ``turn`` as the parse of ``raw`` if ``raw`` is flat."""
        items = tuple(raw.items())
        if not all(type(value) in _SCALARS for _, value in items):
            return
        if len(self._turns) >= self.limit:
            self._turns.clear()  # crude, but bounded and O(1) amortised
        self._turns[id(raw)] = (raw, items, turn)


PARSED_TURNS: Final = FlatTurnMemo()
"""The process-wide memo both formats parse through (``PARSED_TURNS.clear()`` empties it)."""
