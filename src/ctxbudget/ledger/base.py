"""The ledger contract (sync and async) and the logic every store shares.

A store only knows how to run a transaction, read rows and insert rows; the
rules, the concurrency check and the surface bookkeeping live once, in
``recipe`` and ``surface``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Final, Protocol, Self, runtime_checkable

from ctxbudget.errors import ConfigError, InvalidEventError
from ctxbudget.ledger.events import AppendableEvent, Event
from ctxbudget.ledger.rules import MAX_EVENT_BYTES, NewEvent, check_session_id, parse_event
from ctxbudget.ledger.shapes import is_integer

__all__ = [
    "AsyncLedger",
    "Clock",
    "Ledger",
    "LedgerReader",
    "LedgerShell",
    "epoch_ms",
    "prepare_batch",
    "read_bounds",
]

Clock = Callable[[], int]
"""Returns the current time in epoch milliseconds."""


def epoch_ms() -> int:
    """Wall-clock time in epoch milliseconds (the default ``Clock``)."""
    return time.time_ns() // 1_000_000


@runtime_checkable
class LedgerReader(Protocol):
    """What a reader of the log needs: the events of a session from ``start`` on."""

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> Sequence[Event]:
        """Events ``start`` up to (not including) ``stop``, in seq order."""
        ...


@runtime_checkable
class Ledger(LedgerReader, Protocol):
    """A durable, append-only event log per session.

    ``append`` and ``append_many`` return the seqs they assigned. With
    ``expected_revision`` the write happens only if the session is at exactly that
    revision, otherwise ``ConflictError`` and nothing is written. A batch is one
    transaction: all of it is stored or none.
    """

    def append(
        self, session_id: str, event: AppendableEvent, expected_revision: int | None = None
    ) -> int: ...

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]: ...

    def revision(self, session_id: str) -> int:
        """The number of events in the session (the next seq)."""
        ...

    def sessions(self) -> list[str]:
        """Ids of the sessions that have at least one event, sorted."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class LedgerShell:
    """What every sync store does the same way: ``append`` is a batch of one, and the
    store closes itself at the end of a ``with`` block."""

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def append(
        self, session_id: str, event: AppendableEvent, expected_revision: int | None = None
    ) -> int:
        """Append one event; its seq."""
        return self.append_many(session_id, [event], expected_revision)[0]

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@runtime_checkable
class AsyncLedger(Protocol):
    """The async twin of ``Ledger``: same methods, awaited."""

    async def append(
        self, session_id: str, event: AppendableEvent, expected_revision: int | None = None
    ) -> int: ...

    async def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]: ...

    async def events(
        self, session_id: str, start: int = 0, stop: int | None = None
    ) -> Sequence[Event]: ...

    async def revision(self, session_id: str) -> int: ...

    async def sessions(self) -> list[str]: ...

    async def aclose(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


def prepare_batch(
    session_id: object,
    events: Iterable[AppendableEvent],
    expected_revision: int | None,
    max_event_bytes: int = MAX_EVENT_BYTES,
) -> tuple[str, list[NewEvent]]:
    """Check everything that needs no store: the id, each event's shape, the revision type."""
    checked_id = check_session_id(session_id)
    if expected_revision is not None and (
        not isinstance(expected_revision, int)
        or isinstance(expected_revision, bool)
        or expected_revision < 0
    ):
        raise InvalidEventError(
            f"expected_revision must be a non-negative integer or None, not {expected_revision!r}"
        )
    if isinstance(events, str | bytes) or not isinstance(events, Iterable):
        raise InvalidEventError("append_many takes an iterable of event objects")
    batch = []
    for index, raw in enumerate(events):
        try:
            batch.append(parse_event(raw, max_event_bytes))
        except InvalidEventError as exc:
            exc.add_note(f"(event {index} of the batch; nothing was written)")
            raise
    return checked_id, batch


MAX_SEQ: Final = 2**63 - 1
"""The largest seq any store can hold (PostgreSQL bigint); read bounds are clamped to it."""


def read_bounds(start: object, stop: object) -> tuple[int, int]:
    """``events()`` bounds as seqs ``0 <= start``, ``stop <= MAX_SEQ``: the same on every store.

    Negative or huge bounds are clamped (``events(s, 0, -1)`` is empty, not "all but
    the last" as a Python slice would say); a non-integer is a ``ConfigError``.
    """
    for name, value in (("start", start), ("stop", stop)):
        if (value is not None or name == "start") and not is_integer(value):
            raise ConfigError(f"events(): {name} must be an integer seq, not {value!r}")
    low = min(max(start, 0), MAX_SEQ)  # type: ignore[call-overload]
    high = MAX_SEQ if stop is None else min(max(stop, 0), MAX_SEQ)  # type: ignore[call-overload]
    return low, max(low, high)
