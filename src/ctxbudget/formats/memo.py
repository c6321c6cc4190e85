"""Reusing parsed turns across requests while their messages are unchanged.

An agent re-sends its whole history with every request, so the same message
dicts are parsed again and again. When the very same dict still holds the very
same values (checked by identity, which is cheap and exact), the turn parsed
last time is the answer: parsing is a pure function of those values.

The check walks the whole message, nested dicts and lists included (a
``tool_use`` input, ``tool_calls``, a ``cache_control`` dict), comparing each
container and each leaf by identity, so an edit made in place anywhere inside is
seen. Only plain JSON (dicts, lists, strings, numbers, bools, None) is remembered.
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

# What a value looked like when remembered: a scalar itself, or a container with the
# shapes of its items. Checking a shape costs one identity test per node.
Shape: TypeAlias = Any


def _shape(value: Any) -> Shape:
    """The shape of a JSON value, or ``_MISSING`` if it holds something else."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        items = []
        for key, item in value.items():
            shape = _shape(item)
            if shape is _MISSING:
                return _MISSING
            items.append((key, shape))
        return (value, tuple(items))
    if kind is list:
        shapes = []
        for item in value:
            shape = _shape(item)
            if shape is _MISSING:
                return _MISSING
            shapes.append(shape)
        return (value, tuple(shapes))
    return _MISSING


def _unchanged(value: Any, shape: Shape) -> bool:
    """True when ``value`` is the remembered object with the remembered contents."""
    if type(shape) is not tuple:
        return value is shape
    container, items = shape
    if value is not container or len(value) != len(items):
        return False
    # Plain loops: this runs for every node of every message on every request.
    if type(value) is dict:
        get = value.get
        for key, item in items:
            found = get(key, _MISSING)
            if found is not item and (type(item) is not tuple or not _unchanged(found, item)):
                return False
        return True
    for found, item in zip(value, items, strict=True):
        if found is not item and (type(item) is not tuple or not _unchanged(found, item)):
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
        self._turns: dict[int, tuple[Mapping[str, Any], Shape, Turn]] = {}
        self.limit = limit

    def get(self, raw: Mapping[str, Any]) -> Turn | None:
        """The turn parsed from ``raw`` before, if ``raw`` still holds the same values."""
        entry = self._turns.get(id(raw))
        if entry is None or entry[0] is not raw or not _unchanged(raw, entry[1]):
            return None
        return entry[2]

    def put(self, raw: Mapping[str, Any], turn: Turn) -> None:
        """Remember ``turn`` as the parse of ``raw`` when ``raw`` can be checked later."""
        snapshot = _shape(raw)
        if snapshot is _MISSING:
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
