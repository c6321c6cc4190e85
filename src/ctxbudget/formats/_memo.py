"""Reusing parsed turns across requests while their messages are unchanged.

When the very same message dict still holds the very same values (checked by
identity, which is cheap and exact), the turn parsed last time is the answer:
parsing is a pure function of those values. The check walks the whole message,
nested dicts and lists included (a ``tool_use`` input, ``tool_calls``, a
``cache_control`` dict), comparing each container and each leaf by identity, so
an edit made in place anywhere inside is seen. Only plain JSON (dicts, lists,
strings, numbers, bools, None) is remembered. The turns live in the caller's
``RequestCache``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeAlias, cast

from ctxbudget.formats.cache import RequestCache
from ctxbudget.formats.request import Turn

__all__ = ["remember_turn", "remembered_turn"]

_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MISSING: Final = object()

# What a value looked like when remembered: a scalar itself, or a container with the
# shapes of its items. Checking a shape costs one identity test per node.
Shape: TypeAlias = Any


def _shape(value: Any) -> Shape:
    """The shape of a JSON value, or ``_MISSING`` if it holds something else.

    Only called on values whose nesting the parser has already bounded.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        items = []
        for key, item in value.items():
            shape = _shape(item)
            if shape is _MISSING or type(key) is not str:
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


def remembered_turn(cache: RequestCache, format: str, raw: Mapping[str, Any]) -> Turn | None:
    """The turn parsed from ``raw`` before, if ``raw`` still holds the same values.

    One cache key per format: the same dict can parse differently (or not at all)
    in another format.
    """
    entry = cast(
        "tuple[Mapping[str, Any], Shape, Turn] | None", cache.get(("turn", format, id(raw)))
    )
    if entry is None or entry[0] is not raw or not _unchanged(raw, entry[1]):
        return None
    return entry[2]


def remember_turn(
    cache: RequestCache, format: str, raw: Mapping[str, Any], turn: Turn, text_bytes: int
) -> None:
    """Remember ``turn`` as the parse of ``raw`` when ``raw`` can be checked later."""
    if type(raw) is not dict:
        return
    shape = _shape(raw)
    if shape is not _MISSING:
        cache.put(("turn", format, id(raw)), (raw, shape, turn), text_bytes)
