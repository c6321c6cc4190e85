"""Which session a proxied call belongs to, and the proxy's log of each session.

A call names its session with the ``X-Ctxbudget-Session`` header. Without it, the
session is derived from what stays the same over a whole conversation: the
provider, the system prompt and the first message after it (``auto-`` and 24 hex
digits of their SHA-256). Two conversations that open with the same system prompt
and the same first message share a derived session; the log then follows the one
that called last (the other's history counts as rewritten), so an agent that runs
the same task twice at once should send the header.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from anyio import to_thread

from ctxbudget.errors import ConflictError
from ctxbudget.ledger import Ledger
from ctxbudget.server.mirror import (
    EMPTY_VIEW,
    Answer,
    SessionView,
    Unit,
    plan_events,
    surface_op_of,
)

__all__ = ["SESSION_HEADER", "SessionRecorder", "derive_session_id"]

SESSION_HEADER: Final = "x-ctxbudget-session"
"""The request header naming the session (case-insensitive)."""

APPEND_ATTEMPTS: Final = 4
"""Tries at logging one call when other workers keep writing the same session."""


def derive_session_id(provider: str, header: Mapping[str, Any], units: Sequence[Unit]) -> str:
    """A session id stable over one conversation (see the module docstring)."""
    first = units[0].digest if units else ""
    key = json.dumps([provider, header.get("system", ""), first], ensure_ascii=False)
    return "auto-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]


class SessionRecorder:
    """Logs proxied calls into the ledger; keeps recent sessions' views in memory.

    Views are a cache bounded by ``max_bytes``: a view that is missing or behind
    the log (another worker wrote) is caught up from the ledger. Calls of one
    session are logged one at a time in this process, and across processes by the
    ledger's revision check.

    ``expect(session)`` is called as an answer is about to reach the client and
    ``done(session)`` once its call is logged; ``settled(session)`` waits for every
    call expected so far, so a client that reads its session right after an answer
    sees that call (in this process) without any answer waiting for the ledger.
    """

    def __init__(self, ledger: Ledger, max_bytes: int = 16 * 1024 * 1024) -> None:
        self._ledger = ledger
        self._max_bytes = max_bytes
        self._views: OrderedDict[str, SessionView] = OrderedDict()
        self._bytes = 0
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._pending: dict[str, tuple[int, asyncio.Event]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def expect(self, session_id: str) -> None:
        """A call of ``session_id`` will be logged soon."""
        count, settled = self._pending.get(session_id, (0, asyncio.Event()))
        self._pending[session_id] = (count + 1, settled)

    def done(self, session_id: str) -> None:
        """An expected call of ``session_id`` was logged (or given up on)."""
        count, settled = self._pending[session_id]
        if count > 1:
            self._pending[session_id] = (count - 1, settled)
            return
        del self._pending[session_id]
        settled.set()

    def log_later(self, session_id: str, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` (the logging of an expected call) in a task of its own, under the
        session's lock, then mark the call ``done``: no client that hangs up, and no
        cancelled response, can stop a call that completed upstream from being logged."""

        async def run() -> None:
            try:
                async with self.lock(session_id):
                    await work()
            finally:
                self.done(session_id)

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(self._tasks.discard)

    async def drain(self) -> None:
        """Wait for every call being logged (at shutdown)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def settled(self, session_id: str) -> None:
        """Wait until every call expected so far for ``session_id`` is logged."""
        pending = self._pending.get(session_id)
        if pending is not None:
            await pending[1].wait()

    def lock(self, session_id: str) -> asyncio.Lock:
        """The lock calls of ``session_id`` are logged under in this process."""
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    async def view(self, session_id: str) -> SessionView:
        """The session's view: cached, or read from the ledger."""
        cached = self._views.get(session_id)
        if cached is not None:
            self._views.move_to_end(session_id)
            return cached
        return await self._catch_up(session_id, EMPTY_VIEW)

    async def _catch_up(self, session_id: str, view: SessionView) -> SessionView:
        events = await to_thread.run_sync(self._ledger.events, session_id, view.revision)
        view = view.with_events(events)
        self._store(session_id, view)
        return view

    def _store(self, session_id: str, view: SessionView) -> None:
        old = self._views.pop(session_id, None)
        if old is not None:
            self._bytes -= old.size_bytes
        self._views[session_id] = view
        self._bytes += view.size_bytes
        while self._bytes > self._max_bytes and len(self._views) > 1:
            _, evicted = self._views.popitem(last=False)
            self._bytes -= evicted.size_bytes

    async def record(
        self, session_id: str, units: Sequence[Unit], header: Mapping[str, Any], answer: Answer
    ) -> list[int]:
        """Log one call (its new messages, then the answer); the seqs written."""
        view = await self.view(session_id)
        for attempt in range(APPEND_ATTEMPTS):
            events = plan_events(view, units, header, answer)
            try:
                seqs = await to_thread.run_sync(
                    self._ledger.append_many, session_id, events, view.revision
                )
            except ConflictError:
                if attempt == APPEND_ATTEMPTS - 1:
                    raise
                view = await self._catch_up(session_id, view)
                continue
            for seq, event in zip(seqs, events, strict=True):
                op = surface_op_of(event.get("surface_op"))
                view = view.advanced(seq, event["type"], event["data"], op)
            self._store(session_id, view)
            return seqs
        raise AssertionError("unreachable: the loop returns or raises")
