"""The tool-pair rule: a cut is allowed only where every tool call before it has
its result before it.

Providers reject a request whose tool result has no call before it, or whose
call is never answered (OpenAI and Anthropic both answer 400). Trimming history
in the wrong place is the most common way agent libraries produce such requests,
so every stage that removes messages asks this module where it may cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxbudget.content.blocks import Message, ToolCallBlock, ToolResultBlock

__all__ = [
    "PairingReport",
    "check_pairs",
    "is_safe_cut",
    "safe_cut_points",
]


@dataclass(frozen=True, slots=True)
class PairingReport:
    """Where the messages break the pairing rule; both empty means they keep it.

    ``unanswered_calls``: ids of calls with no result after them.
    ``orphan_results``: ids of results with no call before them.
    """

    unanswered_calls: tuple[str, ...]
    orphan_results: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when every call has its result and every result its call."""
        return not self.unanswered_calls and not self.orphan_results


def check_pairs(messages: Sequence[Message]) -> PairingReport:
    """Check that every call is answered later and every result answers an earlier call."""
    open_calls: dict[str, None] = {}  # a dict keeps the calls in the order they were made
    orphans: list[str] = []
    for message in messages:
        # One pass over the blocks: this runs on every request, on every message.
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                if block.tool_call_id in open_calls:
                    del open_calls[block.tool_call_id]
                else:
                    orphans.append(block.tool_call_id)
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                open_calls[block.id] = None
    return PairingReport(tuple(open_calls), tuple(orphans))


def safe_cut_points(messages: Sequence[Message]) -> tuple[int, ...]:
    """Every index ``i`` (0 to ``len(messages)``) where ``messages[:i]`` and
    ``messages[i:]`` can be separated without splitting a call from its result."""
    points = [0]
    open_calls: set[str] = set()
    for index, message in enumerate(messages, start=1):
        open_calls.difference_update(message.tool_result_ids())
        open_calls.update(message.tool_call_ids())
        if not open_calls:
            points.append(index)
    return tuple(points)


def is_safe_cut(messages: Sequence[Message], index: int) -> bool:
    """True when cutting before ``messages[index]`` keeps every tool pair together."""
    if not 0 <= index <= len(messages):
        return False
    made = {call for m in messages[:index] for call in m.tool_call_ids()}
    answered = {result for m in messages[:index] for result in m.tool_result_ids()}
    later = {result for m in messages[index:] for result in m.tool_result_ids()}
    return made <= answered and not (later & made)
