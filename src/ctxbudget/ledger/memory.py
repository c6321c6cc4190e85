"""The in-memory store: for tests and short-lived processes (``memory://``)."""

from __future__ import annotations

import threading
from collections.abc import Iterable

from ctxbudget.ledger.base import (
    Clock,
    LedgerShell,
    TrackerCache,
    check_expected,
    epoch_ms,
    prepare_batch,
)
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.rules import MAX_EVENT_BYTES
from ctxbudget.ledger.surface import plan_append

__all__ = ["MemoryLedger"]


class MemoryLedger(LedgerShell):
    """A ledger held in a dict of lists; thread-safe, gone when the process ends."""

    def __init__(self, *, clock: Clock = epoch_ms, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._logs: dict[str, list[Event]] = {}
        self._trackers = TrackerCache()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return "MemoryLedger()"

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        """Append a batch atomically; the seqs assigned."""
        session_id, batch = prepare_batch(
            session_id, events, expected_revision, self._max_event_bytes
        )
        with self._lock:
            log = self._logs.get(session_id, [])
            check_expected(session_id, expected_revision, len(log))
            tracker = self._trackers.at(session_id, len(log), lambda a, b: log[a:b])
            stored = plan_append(session_id, tracker, batch, self._clock(), log.__getitem__)
            if stored:
                self._logs[session_id] = log
                log.extend(stored)
            self._trackers.advance(session_id, tracker, stored)
        return [e.seq for e in stored]

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        with self._lock:
            return self._logs.get(session_id, [])[max(start, 0) : stop]

    def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        with self._lock:
            return len(self._logs.get(session_id, ()))

    def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        with self._lock:
            return sorted(self._logs)

    def close(self) -> None:
        """Nothing to release."""
