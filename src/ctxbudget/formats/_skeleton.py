"""The one skeleton every provider format fills in: parse, validate, render.

A provider body is a list of items (``messages`` or ``input``), a system prompt
somewhere (leading system messages, a ``system`` key, ``instructions``), tool
declarations and other keys this library passes through. ``ProviderFormat``
does what all formats share:

- parse: the body must be a mapping; every value is checked against
  ``MAX_NESTING`` *before* any recursive code sees it (so a hostile body is a
  ``FormatError``, never a ``RecursionError``); each item is looked up in the
  caller's ``RequestCache`` or parsed by the format's ``parse_item`` (which
  reads blocks through its table of block parsers); tool pairs are checked;
  the pending turn is split off.
- render: an untouched turn is a copy of its source; an edited one goes through
  the format's ``render_turn`` (its table of block renderers); top-level keys
  keep their order, with the format's items and system prompt put back in place.

A format subclass says where its items and system prompt are and how one item
reads and writes; nothing else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

from ctxbudget.content import Block
from ctxbudget.errors import FormatError
from ctxbudget.formats._memo import remember_turn, remembered_turn
from ctxbudget.formats.cache import RequestCache
from ctxbudget.formats.request import (
    FormatName,
    Request,
    Turn,
    check_request_pairs,
    json_copy,
    split_pending,
)

__all__ = [
    "MAX_NESTING",
    "BlockParser",
    "BlockRenderer",
    "Part",
    "ProviderFormat",
    "block_type",
    "listed_messages",
    "nested_chars",
    "role_of",
    "string_field",
]

MAX_NESTING: Final = 100
"""The deepest nesting of JSON containers a body may have (the body itself is
level 1). Real requests stay far below (a tool's JSON schema rarely passes 15);
deeper bodies are refused with a ``FormatError`` before anything recurses."""

Part = Mapping[str, Any]
BlockParser = Callable[[Part, str], Block]
"""Reads one provider block (``where`` names it for errors) into a content block."""
BlockRenderer = Callable[[Any, "Part | None"], dict[str, Any]]
"""Writes one content block over the provider block it came from (``None`` if new)."""

_SCALARS: Final = (str, int, float, bool, type(None))


def nested_chars(value: Any, where: str, label: str) -> int:
    """The memory (bytes) of the strings in ``value``; ``FormatError`` when it is not
    plain JSON or nests deeper than ``MAX_NESTING``. Iterative: no depth overflows it."""
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            chars += sys.getsizeof(item)  # O(1); 1, 2 or 4 bytes a character
        elif isinstance(item, _SCALARS):
            chars += 8
        elif isinstance(item, Mapping | list | tuple):
            if depth > MAX_NESTING:
                raise FormatError(
                    f"{label} request: {where} nests deeper than {MAX_NESTING} levels; "
                    "flatten the value (no provider accepts such a body)"
                )
            if isinstance(item, Mapping):
                for key in item:
                    if not isinstance(key, str):
                        raise FormatError(
                            f"{label} request: {where} has the key {key!r}; "
                            "JSON object keys are strings"
                        )
                    chars += 8  # keys are mostly interned: a pointer
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
        else:
            raise FormatError(
                f"{label} request: {where} holds a {type(item).__name__}; "
                "send plain JSON values (objects, arrays, strings, numbers, booleans, null)"
            )
    return chars


class ProviderFormat:
    """Parse, validate and render one provider's request bodies (see the module doc)."""

    name: ClassVar[FormatName]
    label: ClassVar[str]
    items_key: ClassVar[str]
    """The top-level key of the item list (``messages`` or ``input``)."""
    system_keys: ClassVar[tuple[str, ...]] = ()
    """Top-level keys that hold the system prompt outside the items."""

    def fail(self, where: str, problem: str, fix: str) -> FormatError:
        """A ``FormatError`` saying where, what is wrong and what to do."""
        return FormatError(f"{self.label} request: {where} {problem}; {fix}")

    # -- hooks a format fills in ----------------------------------------------------------

    def fits(self, body: Mapping[str, Any]) -> bool:
        """True when ``body`` has what every request of this format has (for detection)."""
        raise NotImplementedError

    def has_own_marks(self, body: Mapping[str, Any]) -> bool:
        """True when ``body`` has something only this format's requests have."""
        raise NotImplementedError

    def raw_items(self, body: Mapping[str, Any]) -> list[Any]:
        """The provider items of ``body``, in order: ``body[items_key]``, which must be a
        non-empty list (Chat and Messages; Responses also takes text)."""
        raw = body.get(self.items_key)
        if not isinstance(raw, list) or not raw:
            raise self.fail(
                f"{self.items_key!r}", "is missing or empty", "send at least one message in a list"
            )
        return raw

    def parse_item(self, raw: Any, where: str) -> Turn:
        """One provider item as a turn."""
        raise NotImplementedError

    def split_system(
        self, body: Mapping[str, Any], turns: list[Turn]
    ) -> tuple[tuple[Turn, ...], list[Turn]]:
        """(system turns, the other turns)."""
        raise NotImplementedError

    def render_turn(self, turn: Turn) -> Any:
        """An edited (or added) turn as a provider item."""
        raise NotImplementedError

    def render_system(self, request: Request) -> dict[str, Any]:
        """The top-level system keys for ``request`` (empty when there is none)."""
        return {}

    def rendered_turns(self, request: Request) -> tuple[Turn, ...]:
        """The turns that go into the item list, in order."""
        return request.turns

    def add_system_section(self, request: Request, text: str) -> Request:
        """``request`` with ``text`` added to the system prompt as a section of its own."""
        raise NotImplementedError

    def check_pairs(self, body: Mapping[str, Any], turns: Sequence[Turn]) -> None:
        """Refuse tool results without calls and calls without results."""
        check_request_pairs([t.message for t in turns], self.label)

    # -- the shared skeleton --------------------------------------------------------------

    def parse(self, body: Mapping[str, Any], cache: RequestCache | None) -> Request:
        """Parse ``body``; ``FormatError`` says what is wrong. The body is never changed."""
        if not isinstance(body, Mapping):
            raise self.fail("the body", f"is a {type(body).__name__}", "pass the request as a dict")
        for key, value in body.items():
            if not isinstance(key, str):
                raise self.fail("the body", f"has a non-string key {key!r}", "use JSON keys")
            if key != self.items_key:
                nested_chars(value, repr(key), self.label)
        raw_items = self.raw_items(body)
        turns = [self._turn(raw, index, cache) for index, raw in enumerate(raw_items)]
        system, rest = self.split_system(body, turns)
        self.check_pairs(body, rest)
        conversation, pending = split_pending(rest)
        return Request(self.name, system, self.parse_tools(body), conversation, pending, body)

    def _turn(self, raw: Any, index: int, cache: RequestCache | None) -> Turn:
        if cache is not None and type(raw) is dict:
            turn = remembered_turn(cache, self.name, raw)
            if turn is not None:
                return turn
        where = f"{self.items_key}[{index}]"
        # Nesting is bounded before parse_item and the memo recurse into the item.
        chars = nested_chars(raw, where, self.label)
        if not isinstance(raw, Mapping):
            raise self.fail(where, f"is a {type(raw).__name__}", "use an object")
        turn = self.parse_item(raw, where)
        if cache is not None:
            remember_turn(cache, self.name, raw, turn, chars)
        return turn

    def parse_tools(self, body: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
        """The tool declarations (a list of objects, or none)."""
        tools = body.get("tools")
        if tools is None:
            return ()
        if not isinstance(tools, list) or not all(isinstance(t, Mapping) for t in tools):
            raise self.fail(
                "'tools'", "is not a list of objects", "send tool declarations as a list"
            )
        return tuple(tools)

    def render(self, request: Request) -> dict[str, Any]:
        """The provider body for ``request``; a new object sharing no containers."""
        items = [
            json_copy(turn.source) if turn.untouched else self.render_turn(turn)
            for turn in self.rendered_turns(request)
        ]
        system = self.render_system(request)
        out: dict[str, Any] = {}
        for key, value in request.body.items():
            if key == self.items_key:
                out[key] = items
            elif key == "tools":
                out[key] = json_copy(list(request.tools))
            elif key in self.system_keys:
                if key in system:
                    out[key] = system.pop(key)
            else:
                out[key] = json_copy(value)
        out.update(system)
        out.setdefault(self.items_key, items)
        if request.tools:
            out.setdefault("tools", json_copy(list(request.tools)))
        return out


def block_type(part: Any, where: str, fmt: ProviderFormat) -> str:
    """The ``type`` of a provider block; ``FormatError`` when it has none."""
    if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
        raise fmt.fail(where, "is not a content block with a 'type'", "send {'type': 'text', ...}")
    kind: str = part["type"]
    return kind


def listed_messages(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The object items of ``body["messages"]`` when it is a list, else none: format
    detection reads any body, so a ``messages`` of the wrong shape is only left for the
    parser to refuse."""
    raw = body.get("messages")
    return [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []


def string_field(part: Mapping[str, Any], key: str, where: str, fmt: ProviderFormat) -> str:
    """``part[key]`` when it is a string; ``FormatError`` otherwise."""
    value = part.get(key)
    if not isinstance(value, str):
        raise fmt.fail(where, f"has no string {key!r}", f"add the {key}")
    return value


def role_of(
    raw: Mapping[str, Any], roles: frozenset[str], where: str, fmt: ProviderFormat, fix: str = ""
) -> str:
    """The item's role when it is one of ``roles`` (checked without hashing a hostile value)."""
    role = raw.get("role")
    if not isinstance(role, str) or role not in roles:
        raise fmt.fail(where, f"has role {role!r}", fix or f"use one of {sorted(roles)}")
    return role
