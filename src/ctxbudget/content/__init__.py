"""The content model shared by the ledger, the request formats and pricing."""

from ctxbudget.content.blocks import (
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)
from ctxbudget.content.codec import (
    ContentShapeError,
    block_from_json,
    block_to_json,
    blocks_from_json,
    blocks_to_json,
    message_from_json,
    message_to_json,
)

__all__ = [
    "Block",
    "ContentShapeError",
    "ImageBlock",
    "Message",
    "ReasoningBlock",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "UnknownBlock",
    "block_from_json",
    "block_to_json",
    "blocks_from_json",
    "blocks_to_json",
    "message_from_json",
    "message_to_json",
]
