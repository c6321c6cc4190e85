"""What the host plugs into the request path: an archive for originals, a summarizer.

The kernel's ``Archive`` and ``Summarizer`` work on item ids the host resolves;
on the request path there are no ids, only the text of the request, so these
protocols carry the content itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ctxbudget.content import Message

__all__ = [
    "ArchiveCall",
    "AsyncOriginalsArchive",
    "AsyncTurnSummarizer",
    "Original",
    "OriginalsArchive",
    "SummarizeCall",
    "SummaryRequest",
    "TurnSummarizer",
]


@dataclass(frozen=True, slots=True)
class Original:
    """Content a stage is about to replace, handed to the archive first.

    ``kind``: ``"tool_output"`` (one tool result about to become a stub) or
    ``"turns"`` (history turns about to be summarized).
    ``messages``: the content as it came in the request (a tool output is one
    ``tool`` message holding its ``ToolResultBlock``).
    ``text``: the same as plain text, for archives that store text.
    ``tool_call_id`` / ``tool_name``: which call produced a tool output.
    """

    kind: Literal["tool_output", "turns"]
    messages: tuple[Message, ...]
    text: str
    tool_call_id: str = ""
    tool_name: str = ""


@runtime_checkable
class OriginalsArchive(Protocol):
    """Stores originals durably before a stage replaces them."""

    def store(self, original: Original) -> str:
        """Store ``original``; return a handle the agent can later retrieve it with."""
        ...


@runtime_checkable
class AsyncOriginalsArchive(Protocol):
    """``OriginalsArchive`` for async hosts."""

    async def store(self, original: Original) -> str:
        """Store ``original``; return a handle the agent can later retrieve it with."""
        ...


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """The older history turns to summarize.

    ``turns`` are as the earlier stages left them (long texts trimmed, old tool
    outputs stubbed), so the summarizer's own prompt stays small; the originals
    went to the archive. ``transcript`` is the same as ``role: text`` lines.
    """

    turns: tuple[Message, ...]
    transcript: str
    cost_pressure: bool = False


@runtime_checkable
class TurnSummarizer(Protocol):
    """Summarizes older history turns into text for the system prompt."""

    def summarize(self, request: SummaryRequest) -> str:
        """A summary of ``request.turns``; empty text means "no summary"."""
        ...


@runtime_checkable
class AsyncTurnSummarizer(Protocol):
    """``TurnSummarizer`` for async hosts."""

    async def summarize(self, request: SummaryRequest) -> str:
        """A summary of ``request.turns``; empty text means "no summary"."""
        ...


@dataclass(frozen=True, slots=True)
class ArchiveCall:
    """The pipeline asks its driver to archive ``original`` and send back the handle."""

    original: Original


@dataclass(frozen=True, slots=True)
class SummarizeCall:
    """The pipeline asks its driver to summarize and send back the summary text."""

    request: SummaryRequest
