"""Token counting: counters, and pricing of messages and tools on top of them."""

from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.defaults import default_counter
from ctxbudget.tokens.heuristics import Chars4Counter, CJKCounter
from ctxbudget.tokens.pricing import (
    BLOCK_OVERHEAD,
    MESSAGE_OVERHEAD,
    SEED_OVERHEADS,
    Overheads,
    json_text,
    price_block,
    price_content,
    price_message,
    price_tools,
)

__all__ = [
    "BLOCK_OVERHEAD",
    "MESSAGE_OVERHEAD",
    "SEED_OVERHEADS",
    "CJKCounter",
    "Chars4Counter",
    "Overheads",
    "TokenCounter",
    "default_counter",
    "json_text",
    "price_block",
    "price_content",
    "price_message",
    "price_tools",
]
