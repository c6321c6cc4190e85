"""Surface events as messages: how a span of the ledger reads as conversation.

One mapping for the whole library's view of logged spans: compaction summarizes
these messages, archives store and give back exactly these messages.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Final

from ctxbudget.content import Message, ToolResultBlock, blocks_from_json
from ctxbudget.ledger import SURFACE_TYPES, Event

__all__ = ["event_message", "event_messages"]

_ROLES: Final = MappingProxyType(
    {
        "user/message": "user",
        "assistant/message": "assistant",
        "context/message": "context",
        "steering/message": "steering",
    }
)


def event_message(event: Event) -> Message:
    """The message a surface event shows the model; ``ValueError`` for other events.

    A ``tool/result`` becomes a ``tool`` message holding one ``ToolResultBlock``;
    ``context`` and ``steering`` messages keep their own role, so a transcript can
    tell them from what the user typed.
    """
    if event.type not in SURFACE_TYPES:
        raise ValueError(f"seq {event.seq} is a {event.type} event, not a surface message")
    content = blocks_from_json(event.data.get("content", ()))
    if event.type == "tool/result":
        call_id = str(event.data.get("call_id", ""))
        result = ToolResultBlock(call_id, content, bool(event.data.get("is_error", False)))
        return Message("tool", (result,))
    return Message(_ROLES[event.type], content)


def event_messages(events: Iterable[Event]) -> tuple[Message, ...]:
    """``event_message`` of each event, in order."""
    return tuple(event_message(event) for event in events)
