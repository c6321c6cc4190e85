"""The one content model: a message is a role and a tuple of content blocks.

The ledger's events carry these blocks as JSON, the request formats parse into
them, and pricing prices them, so there is one pricing function and one
tool-pairing rule for the whole library.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

__all__ = [
    "Block",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "UnknownBlock",
]


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Visible text."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningBlock:
    """Model reasoning ("thinking"). ``signature`` is the provider's opaque proof, if any."""

    text: str
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    """A tool call; ``arguments`` is the JSON text exactly as the model produced it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    """The result of the call ``tool_call_id``."""

    tool_call_id: str
    content: tuple[Block, ...]
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An image; ``data`` is the block as it came (URL, base64 source, attachment ref)."""

    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UnknownBlock:
    """A block type this library does not know, kept exactly as it came."""

    data: Mapping[str, Any]


Block: TypeAlias = (
    TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | ImageBlock | UnknownBlock
)


@dataclass(frozen=True, slots=True)
class Message:
    """A role (``system``, ``user``, ``assistant``, ``tool`` …) and its blocks."""

    role: str
    content: tuple[Block, ...]

    def tool_call_ids(self) -> tuple[str, ...]:
        """Ids of the tool calls this message makes."""
        return tuple(b.id for b in self.content if isinstance(b, ToolCallBlock))

    def tool_result_ids(self) -> tuple[str, ...]:
        """Ids of the tool calls this message answers."""
        return tuple(b.tool_call_id for b in self.content if isinstance(b, ToolResultBlock))
