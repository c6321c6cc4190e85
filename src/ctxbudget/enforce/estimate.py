"""Estimating a request, segment by segment, fast enough for every request.

A ``CachingCounter`` remembers counts by text across calls (the same history is
re-sent every turn), and ``Pricer`` remembers the price of each message: for the
call in a local table, across calls in the caller's ``RequestCache`` (parsed
turns are reused across requests, so are their messages and prices). A warm
request is a few dictionary look-ups per message; a stage that edits three turns
re-prices three turns, not six hundred.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxbudget.content import Message
from ctxbudget.formats import PENDING, Request, RequestCache, Turn
from ctxbudget.kernel import CONVERSATION, SYSTEM, TOOLS
from ctxbudget.tokens import DEFAULT_OVERHEADS, Overheads, TokenCounter, price_message
from ctxbudget.tokens import price_tools as _price_tools

__all__ = [
    "PENDING",
    "Pricer",
    "SegmentTokens",
]


@dataclass(frozen=True, slots=True)
class SegmentTokens:
    """Estimated tokens per segment of one request."""

    system: int
    tools: int
    conversation: int
    pending: int

    @property
    def total(self) -> int:
        """The whole request."""
        return self.system + self.tools + self.conversation + self.pending

    def largest(self) -> tuple[str, int]:
        """The biggest segment and its tokens (the first one on a tie)."""
        named = {SYSTEM: self.system, TOOLS: self.tools, CONVERSATION: self.conversation}
        named[PENDING] = self.pending
        name = max(named, key=lambda key: named[key])
        return name, named[name]


class Pricer:
    """Prices the turns of one enforcement call, each message once.

    Messages are remembered by identity together with the message itself (and,
    in the shared cache, the counter), so no id can be reused by another object
    while its entry lives.
    """

    __slots__ = ("_by_id", "_cache", "_last", "_tools", "counter", "overheads")

    def __init__(
        self,
        counter: TokenCounter,
        cache: RequestCache | None = None,
        overheads: Overheads = DEFAULT_OVERHEADS,
    ) -> None:
        self.counter = counter
        self.overheads = overheads
        self._cache = cache
        self._by_id: dict[int, tuple[Message, int]] = {}
        self._tools: tuple[Sequence[Mapping[str, Any]], int] | None = None
        self._last: tuple[Request, SegmentTokens] | None = None

    def message(self, message: Message) -> int:
        """Tokens of one message."""
        found = self._by_id.get(id(message))
        if found is None:
            found = (message, self._shared_price(message))
            self._by_id[id(message)] = found
        return found[1]

    def _shared_price(self, message: Message) -> int:
        cache = self._cache
        key = ("price", id(self.counter), self.overheads, id(message))
        if cache is not None:
            entry = cache.get(key)
            if entry is not None and entry[0] is message and entry[1] is self.counter:  # type: ignore[index]
                return entry[2]  # type: ignore[index,no-any-return]
        price = price_message(message, self.counter, self.overheads)
        if cache is not None:
            cache.put(key, (message, self.counter, price))
        return price

    def price_once(self, message: Message) -> int:
        """Tokens of a message priced once and not remembered (a candidate a stage tries)."""
        return price_message(message, self.counter, self.overheads)

    def turns(self, turns: Sequence[Turn]) -> int:
        """Tokens of a run of turns."""
        # A plain loop over a local dict: this runs over every turn several times per
        # request, and a generator of method calls costs about twice as much.
        by_id = self._by_id
        total = 0
        for turn in turns:
            found = by_id.get(id(turn.message))
            total += found[1] if found is not None else self.message(turn.message)
        return total

    def tools(self, tools: Sequence[Mapping[str, Any]], raw: object = None) -> int:
        """Tokens of the tool declarations (priced once per call; across calls too when
        ``raw``, the body's own list, is unchanged: agents send the same tools every time)."""
        if self._tools is None or self._tools[0] is not tools:
            self._tools = (tools, self._shared_tools_price(tools, raw))
        return self._tools[1]

    def _shared_tools_price(self, tools: Sequence[Mapping[str, Any]], raw: object) -> int:
        """The price of the tool declarations: found by identity when ``raw`` (the body's
        own list) is the very list priced before and unchanged, else by content (a proxy
        decodes every body anew, and agents send the same tools on every call), else
        counted. Entries keep the counter, so its id cannot be taken over."""
        cache = self._cache
        if cache is None or type(raw) is not list or len(raw) != len(tools):
            return _price_tools(tools, self.counter, self.overheads)
        key = ("tools", id(self.counter), self.overheads, id(raw))
        found = cache.get_checked(key, raw)
        if type(found) is tuple and found[0] is self.counter:
            price: int = found[1]
            return price
        content = cache.content_key(raw)
        content_key = (
            None if content is None else ("tools", id(self.counter), self.overheads, content)
        )
        if content_key is not None:
            found = cache.get_by_content(content_key, raw)
            if type(found) is tuple and found[0] is self.counter:
                return int(found[1])
        price = _price_tools(tools, self.counter, self.overheads)
        cache.put_checked(key, raw, (self.counter, price), 64 * len(tools))
        if content_key is not None:
            copy = cache.private_copy(raw)
            if copy == raw:  # plain JSON: the copy stands for the content
                size = len(json.dumps(copy, ensure_ascii=False))
                cache.put_by_content(content_key, copy, (self.counter, price), size)
        return price

    def segments(self, request: Request) -> SegmentTokens:
        """Tokens per segment of ``request`` (remembered for the last request asked about)."""
        last = self._last
        if last is not None and last[0] is request:
            return last[1]
        segments = SegmentTokens(
            system=self.turns(request.system),
            tools=self.tools(request.tools, request.body.get("tools")),
            conversation=self.turns(request.conversation),
            pending=self.turns(request.pending),
        )
        self._last = (request, segments)
        return segments
