"""Pricing of messages and tool declarations over any ``TokenCounter``.

Rounding happens per field (text, tool name, arguments each counted on their own),
as in the replay meter of seed 002. With ``Chars4Counter`` and ``SEED_OVERHEADS``
every vector of that seed holds exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxbudget.content import (
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ctxbudget.tokens.base import TokenCounter

__all__ = [
    "BLOCK_OVERHEAD",
    "CHAT_BLOCK_OVERHEAD",
    "CHAT_MESSAGE_OVERHEAD",
    "DEFAULT_OVERHEADS",
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "SEED_OVERHEADS",
    "Overheads",
    "json_text",
    "price_block",
    "price_content",
    "price_message",
    "price_tools",
]

MESSAGE_OVERHEAD: Final = 4
"""Tokens a message costs beyond its blocks (role tag, framing) in seed mode."""
BLOCK_OVERHEAD: Final = 4
"""Tokens each block costs beyond its fields in seed mode."""


@dataclass(frozen=True, slots=True)
class Overheads:
    """Structural costs added on top of counted text.

    ``image``: tokens an image costs; ``None`` prices the image block's JSON like an
    unknown block (the seed's rule, which prices the reference, not the pixels).
    """

    message: int = MESSAGE_OVERHEAD
    block: int = BLOCK_OVERHEAD
    image: int | None = None


SEED_OVERHEADS: Final = Overheads()
"""4 per message, 4 per block, images priced by their JSON: seed 002's rule."""

CHAT_MESSAGE_OVERHEAD: Final = 4
"""Tokens a chat template adds around one message: OpenAI documents 3 for its ChatML
framing (``<|im_start|>role ... <|im_end|>``), one more when a name is set."""
CHAT_BLOCK_OVERHEAD: Final = 2
"""Tokens between content parts or around a tool call's name and arguments; an estimate
(providers do not document it), kept small because it is paid per block."""
IMAGE_TOKENS: Final = 1600
"""Tokens one image may cost: Anthropic's ceiling for an image of about 1.15 megapixels
(width x height / 750); OpenAI's high-detail 1024x1024 image costs 765."""
DEFAULT_OVERHEADS: Final = Overheads(
    message=CHAT_MESSAGE_OVERHEAD, block=CHAT_BLOCK_OVERHEAD, image=IMAGE_TOKENS
)
"""Overheads for real models (with a calibrated or exact counter), as opposed to the
seed's fixed rule; images are priced at ``IMAGE_TOKENS`` instead of by their reference."""


def json_text(value: Any) -> str:
    """Compact JSON as JavaScript's ``JSON.stringify`` writes it (key order kept,
    non-ASCII raw, integral floats without ``.0``)."""
    return json.dumps(_js_numbers(value), separators=(",", ":"), ensure_ascii=False)


def _js_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _js_numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_js_numbers(v) for v in value]
    return value


def price_block(block: Block, counter: TokenCounter, overheads: Overheads = SEED_OVERHEADS) -> int:
    """Tokens of one block, its overhead included."""
    if isinstance(block, TextBlock | ReasoningBlock):
        return counter.count(block.text) + overheads.block
    if isinstance(block, ToolCallBlock):
        return counter.count(block.name) + counter.count(block.arguments) + overheads.block
    if isinstance(block, ToolResultBlock):
        return price_content(block.content, counter, overheads) + overheads.block
    if isinstance(block, ImageBlock) and overheads.image is not None:
        return overheads.image + overheads.block
    return counter.count(json_text(block.data)) + overheads.block


def price_content(
    blocks: Iterable[Block], counter: TokenCounter, overheads: Overheads = SEED_OVERHEADS
) -> int:
    """Tokens of a list of blocks."""
    return sum(price_block(b, counter, overheads) for b in blocks)


def price_message(
    message: Message, counter: TokenCounter, overheads: Overheads = SEED_OVERHEADS
) -> int:
    """Tokens of a message: its blocks plus the message overhead (the role is not counted)."""
    return price_content(message.content, counter, overheads) + overheads.message


def price_tools(
    tools: Sequence[Mapping[str, Any]],
    counter: TokenCounter,
    overheads: Overheads = SEED_OVERHEADS,
) -> int:
    """Tokens of tool declarations: the whole list serialized once, plus one block overhead.

    An empty list costs nothing.
    """
    if not tools:
        return 0
    return counter.count(json_text(list(tools))) + overheads.block
