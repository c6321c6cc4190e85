"""Maximum output tokens per model: the one figure the model database does not carry.

From the providers' own model pages (Anthropic's models overview, OpenAI's model pages),
keyed by the database's model id. A model missing here gets
``max_output_tokens=None``: the caller gives the reserve, nothing is guessed.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

__all__ = ["MAX_OUTPUT_TOKENS"]

MAX_OUTPUT_TOKENS: Final = MappingProxyType(
    {
        # Anthropic
        "claude-opus-4-5": 64_000,
        "claude-opus-4-1": 32_000,
        "claude-opus-4": 32_000,
        "claude-sonnet-4-5": 64_000,
        "claude-sonnet-4": 64_000,
        "claude-haiku-4-5": 64_000,
        "claude-3-7-sonnet": 64_000,
        "claude-3-5-sonnet": 8_192,
        "claude-3-5-haiku": 8_192,
        # OpenAI
        "gpt-4o": 16_384,
        "gpt-4o-mini": 16_384,
        "gpt-4.1": 32_768,
        "gpt-4.1-mini": 32_768,
        "gpt-4.1-nano": 32_768,
        "gpt-5": 128_000,
        "gpt-5-mini": 128_000,
        "gpt-5-nano": 128_000,
        "o1": 100_000,
        "o3": 100_000,
        "o3-mini": 100_000,
        "o4-mini": 100_000,
    }
)
"""Database model id -> the most tokens one reply may hold."""
