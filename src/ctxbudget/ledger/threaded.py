"""Async twins of the in-process stores: the sync store, run in a worker thread.

SQLite and the memory store do no network I/O worth awaiting; running their
sync methods through ``asyncio.to_thread`` keeps the event loop free during an
fsync without a second implementation of the rules.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from types import TracebackType
from typing import Self

from ctxbudget.ledger.base import Ledger
from ctxbudget.ledger.events import AppendableEvent, Event

__all__ = ["ThreadedAsyncLedger"]


class ThreadedAsyncLedger:
    """An ``AsyncLedger`` over any sync ``Ledger``; each call runs in a worker thread."""

    def __init__(self, ledger: Ledger) -> None:
        self.sync = ledger

    def __repr__(self) -> str:
        return f"ThreadedAsyncLedger({self.sync!r})"

    async def append(
        self, session_id: str, event: AppendableEvent, expected_revision: int | None = None
    ) -> int:
        """Append one event; its seq."""
        return await asyncio.to_thread(self.sync.append, session_id, event, expected_revision)

    async def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        """Append a batch atomically; the seqs assigned."""
        batch = list(events)
        return await asyncio.to_thread(self.sync.append_many, session_id, batch, expected_revision)

    async def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop``, in seq order."""
        return list(await asyncio.to_thread(self.sync.events, session_id, start, stop))

    async def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        return await asyncio.to_thread(self.sync.revision, session_id)

    async def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        return await asyncio.to_thread(self.sync.sessions)

    async def aclose(self) -> None:
        """Close the underlying store."""
        await asyncio.to_thread(self.sync.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
