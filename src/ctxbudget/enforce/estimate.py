"""Estimating a request, segment by segment, fast enough for every request.

Two caches keep the warm path cheap. A ``CachingCounter`` remembers counts by text
across calls (the same history is re-sent every turn), and ``Pricer`` remembers
each message it priced during one call, so a stage that edits three turns
re-prices three turns, not six hundred.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from weakref import WeakKeyDictionary

from ctxbudget.content import Message
from ctxbudget.formats import PENDING, Request, Turn
from ctxbudget.kernel import CONVERSATION, SYSTEM, TOOLS
from ctxbudget.tokens import DEFAULT_OVERHEADS, Overheads, TokenCounter, price_message
from ctxbudget.tokens import price_tools as _price_tools

__all__ = [
    "PENDING",
    "Pricer",
    "SegmentTokens",
]


_MEMO_LIMIT: Final = 65_536
_PRICE_LIMIT: Final = 8_192  # messages are pinned while priced: keep as many as the parse memo


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


_PRICES_BY_COUNTER: WeakKeyDictionary[TokenCounter, dict[int, tuple[Message, int]]] = (
    WeakKeyDictionary()
)


def _shared_prices(counter: TokenCounter) -> dict[int, tuple[Message, int]]:
    """Message prices shared by every ``Pricer`` over ``counter``.

    Parsed turns are reused across requests (the parse memo), so are their prices:
    that is what keeps a warm request to a few dictionary look-ups per message. A
    counter that cannot be weakly referenced gets a private table per call.
    """
    try:
        return _PRICES_BY_COUNTER.setdefault(counter, {})
    except TypeError:
        return {}


class Pricer:
    """Prices the turns of one enforcement call, each message once.

    Messages are remembered by identity together with the message itself, so an
    id cannot be reused by another object while the pricer lives.
    """

    __slots__ = ("_by_id", "_last", "_tools", "counter", "overheads")

    def __init__(self, counter: TokenCounter, overheads: Overheads = DEFAULT_OVERHEADS) -> None:
        self.counter = counter
        self.overheads = overheads
        self._by_id = _shared_prices(counter) if overheads == DEFAULT_OVERHEADS else {}
        self._tools: tuple[Sequence[Mapping[str, Any]], int] | None = None
        self._last: tuple[Request, SegmentTokens] | None = None

    def message(self, message: Message) -> int:
        """Tokens of one message."""
        found = self._by_id.get(id(message))
        if found is None:
            if len(self._by_id) >= _PRICE_LIMIT:
                self._by_id.clear()
            found = (message, price_message(message, self.counter, self.overheads))
            self._by_id[id(message)] = found
        return found[1]

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

    def tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of the tool declarations (priced once per call)."""
        if self._tools is None or self._tools[0] is not tools:
            self._tools = (tools, _price_tools(tools, self.counter, self.overheads))
        return self._tools[1]

    def segments(self, request: Request) -> SegmentTokens:
        """Tokens per segment of ``request`` (remembered for the last request asked about)."""
        last = self._last
        if last is not None and last[0] is request:
            return last[1]
        segments = SegmentTokens(
            system=self.turns(request.system),
            tools=self.tools(request.tools),
            conversation=self.turns(request.conversation),
            pending=self.turns(request.pending),
        )
        self._last = (request, segments)
        return segments
