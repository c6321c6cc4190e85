"""Each agent's recorded usage as the ledger's usage (disjoint buckets).

The ledger's ``input_tokens`` is uncached input only, beside ``cache_read_tokens``
and ``cache_write_tokens`` (``docs/events.md``). Anthropic (and so Claude Code)
reports exactly that. OpenAI's ``prompt_tokens`` and Codex's ``input_tokens``
include the cached part, which is subtracted here; LiteLLM's ``prompt_tokens``
for Anthropic models includes cache writes too (``cache_creation_input_tokens``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["UsageShapeError", "anthropic_usage", "codex_usage", "openai_usage"]


class UsageShapeError(ValueError):
    """Usage whose counts are not non-negative integers."""


def anthropic_usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """Anthropic Messages usage: input excludes cache reads and writes."""
    return _usage(
        _count(usage, "input_tokens"),
        _count(usage, "output_tokens"),
        _count(usage, "cache_read_input_tokens"),
        _count(usage, "cache_creation_input_tokens"),
    )


def openai_usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """Chat Completions usage (also as LiteLLM reports it for any provider):
    ``prompt_tokens`` includes the cached tokens, and cache writes when given."""
    details = usage.get("prompt_tokens_details")
    cached = _count(details, "cached_tokens") if isinstance(details, Mapping) else 0
    cached = cached or _count(usage, "cache_read_input_tokens")
    written = _count(usage, "cache_creation_input_tokens")
    prompt = _count(usage, "prompt_tokens")
    if prompt < cached + written:
        written = 0  # this reporter left cache writes out of prompt_tokens
    out = _usage(prompt - cached - written, _count(usage, "completion_tokens"), cached, written)
    reasoning = usage.get("completion_tokens_details")
    if isinstance(reasoning, Mapping) and _count(reasoning, "reasoning_tokens"):
        out["reasoning_tokens"] = _count(reasoning, "reasoning_tokens")
    return out


def codex_usage(usage: Mapping[str, Any]) -> dict[str, int]:
    """Codex CLI ``token_count`` usage: ``input_tokens`` is the whole prompt, including
    ``cached_input_tokens`` (and, in newer rollouts, ``cache_write_input_tokens``);
    ``reasoning_output_tokens`` is part of the output."""
    cached = _count(usage, "cached_input_tokens")
    written = _count(usage, "cache_write_input_tokens")
    total_input = _count(usage, "input_tokens")
    if cached + written > total_input:
        raise UsageShapeError(
            f"cached_input_tokens ({cached}) and cache_write_input_tokens ({written}) exceed "
            f"input_tokens ({total_input}), which includes them"
        )
    out = _usage(total_input - cached - written, _count(usage, "output_tokens"), cached, written)
    if _count(usage, "reasoning_output_tokens"):
        out["reasoning_tokens"] = _count(usage, "reasoning_output_tokens")
    return out


def _usage(input_tokens: int, output: int, cache_read: int, cache_write: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output,
        "cache_read_tokens": cache_read,
        "cache_write_tokens": cache_write,
    }


def _count(usage: Mapping[str, Any] | None, key: str) -> int:
    value = usage.get(key) if usage is not None else None
    if value is None:
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UsageShapeError(f"usage field {key!r} is {value!r}, not a non-negative integer")
    return value
