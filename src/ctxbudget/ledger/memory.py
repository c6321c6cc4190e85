"""The in-memory store: for tests and short-lived processes (``memory://``)."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable, Mapping, Sequence

from ctxbudget.ledger.base import Clock, LedgerShell, epoch_ms, prepare_batch, read_bounds
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.recipe import Commit, append_recipe, run_recipe
from ctxbudget.ledger.rules import MAX_EVENT_BYTES
from ctxbudget.ledger.surface import SessionState, SurfaceEntry

__all__ = ["MemoryLedger"]


class _MemorySession:
    """One session's log, state row and surface entries (a ``SessionStore``)."""

    def __init__(self) -> None:
        self.log: list[Event] = []
        self.state: SessionState | None = None
        self.entries: dict[int, SurfaceEntry] = {}
        self.order: list[tuple[int, int]] = []  # (pos, seq), sorted: the surface in order

    def revision(self) -> int:
        return len(self.log)

    def load_state(self) -> SessionState | None:
        return self.state

    def positions(self, seqs: Sequence[int]) -> Mapping[int, SurfaceEntry]:
        return {s: self.entries[s] for s in seqs if s in self.entries}

    def span(self, first: int, last: int) -> Sequence[SurfaceEntry]:
        low = bisect.bisect_left(self.order, (first, -1))
        high = bisect.bisect_right(self.order, (last, 2**63))
        return [self.entries[seq] for _, seq in self.order[low:high]]

    def read_events(self, seqs: Sequence[int]) -> Mapping[int, Event]:
        return {s: self.log[s] for s in seqs if 0 <= s < len(self.log)}

    def read_range(self, start: int, stop: int) -> Sequence[Event]:
        return self.log[start:stop]

    def commit(self, commit: Commit) -> None:
        for seq in commit.surface_deleted:
            entry = self.entries.pop(seq)
            del self.order[bisect.bisect_left(self.order, (entry.pos, seq))]
        for entry in commit.surface_added:
            self.entries[entry.seq] = entry
            bisect.insort(self.order, (entry.pos, entry.seq))
        self.log.extend(commit.stored)
        self.state = commit.state


class MemoryLedger(LedgerShell):
    """A ledger held in a dict of lists; thread-safe, gone when the process ends."""

    def __init__(self, *, clock: Clock = epoch_ms, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._clock = clock
        self._max_event_bytes = max_event_bytes
        self._sessions: dict[str, _MemorySession] = {}
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
            session = self._sessions.get(session_id) or _MemorySession()
            recipe = append_recipe(session_id, batch, expected_revision, self._clock())
            stored = run_recipe(recipe, session)
            if session.log:
                self._sessions[session_id] = session
        return [e.seq for e in stored]

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        """Events ``start`` up to ``stop`` (default: the end), in seq order."""
        low, high = read_bounds(start, stop)
        with self._lock:
            session = self._sessions.get(session_id)
            return session.log[low:high] if session else []

    def revision(self, session_id: str) -> int:
        """The number of events in the session."""
        with self._lock:
            session = self._sessions.get(session_id)
            return len(session.log) if session else 0

    def sessions(self) -> list[str]:
        """Session ids with at least one event, sorted."""
        with self._lock:
            return sorted(self._sessions)

    def close(self) -> None:
        """Nothing to release."""
