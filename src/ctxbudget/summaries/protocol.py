"""``Summarizer``: messages in, summary text out, within a token budget."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ctxbudget.content import Message

__all__ = ["AsyncSummarizer", "Summarizer", "SummaryRequest"]


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """What to summarize and how much room the summary has.

    ``messages``: the span to condense, oldest first, as the caller left it (a prior
    checkpoint may be among them: merge it rather than copy it).
    ``max_tokens``: the most tokens the summary text may take.
    """

    messages: tuple[Message, ...]
    max_tokens: int


@runtime_checkable
class Summarizer(Protocol):
    """Condenses a span of conversation into text."""

    def summarize(self, request: SummaryRequest) -> str:
        """A summary of ``request.messages`` within ``request.max_tokens``."""
        ...


@runtime_checkable
class AsyncSummarizer(Protocol):
    """``Summarizer`` for async hosts."""

    async def summarize(self, request: SummaryRequest) -> str:
        """A summary of ``request.messages`` within ``request.max_tokens``."""
        ...
