"""``Archive``: keep originals addressable by a locator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from ctxbudget.content import Message

__all__ = ["Archive", "AsyncArchive", "Original"]


@dataclass(frozen=True, slots=True)
class Original:
    """Content about to be replaced, handed to the archive first.

    ``kind``: ``"tool_output"`` (one tool result about to become a stub) or
    ``"turns"`` (a span of history about to be summarized).
    ``messages``: the content exactly as it was.
    ``session_id`` / ``seqs``: where the span sat in the ledger, when it came from one.
    ``tool_call_id`` / ``tool_name``: which call produced a tool output.
    """

    kind: Literal["tool_output", "turns"]
    messages: tuple[Message, ...]
    session_id: str = ""
    seqs: tuple[int, ...] = ()
    tool_call_id: str = ""
    tool_name: str = ""


@runtime_checkable
class Archive(Protocol):
    """Stores originals durably and gives them back by locator."""

    def store(self, original: Original) -> str:
        """Store ``original``; return its locator."""
        ...

    def retrieve(self, locator: str) -> Original:
        """The original stored under ``locator``, exactly as it was stored."""
        ...


@runtime_checkable
class AsyncArchive(Protocol):
    """``Archive`` for async hosts."""

    async def store(self, original: Original) -> str:
        """Store ``original``; return its locator."""
        ...

    async def retrieve(self, locator: str) -> Original:
        """The original stored under ``locator``, exactly as it was stored."""
        ...
