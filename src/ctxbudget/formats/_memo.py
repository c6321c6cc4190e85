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
from typing import Any

from ctxbudget.formats.cache import RequestCache
from ctxbudget.formats.request import Turn

__all__ = ["remember_turn", "remembered_turn"]


def remembered_turn(cache: RequestCache, format: str, raw: Mapping[str, Any]) -> Turn | None:
    """The turn parsed from ``raw`` before, if ``raw`` still holds the same values.

    One cache key per format: the same dict can parse differently (or not at all)
    in another format.
    """
    turn = cache.get_checked(("turn", format, id(raw)), raw)
    return turn if isinstance(turn, Turn) else None


def remember_turn(
    cache: RequestCache, format: str, raw: Mapping[str, Any], turn: Turn, text_bytes: int
) -> None:
    """Remember ``turn`` as the parse of ``raw`` when ``raw`` can be checked later."""
    if type(raw) is dict:
        cache.put_checked(("turn", format, id(raw)), raw, turn, text_bytes)
