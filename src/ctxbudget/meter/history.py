"""A session's calls replayed: what the meter predicted before each, beside the usage
the provider then reported (``TokenMeter.history``).

The prediction of a call is the measurement at the moment its request went out:
after its ``step/start`` and any ``request/header``, before its first chunk or
its ``assistant/message``. Its error is how far that was from the prompt the
provider reported (input + cache read + cache write), which is what the meter's
accuracy figures in ``docs/meter.md`` are measured on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxbudget.ledger import Event
from ctxbudget.meter.measurement import Measurement, Usage

__all__ = ["CallPrediction", "PrefixReader", "call_points"]


@dataclass(frozen=True, slots=True)
class CallPrediction:
    """One provider call: the meter's measurement before it and the usage it reported.

    ``seq`` is the call's ``assistant/message``; ``usage`` is ``None`` when the call
    recorded none.
    """

    seq: int
    measurement: Measurement
    usage: Usage | None

    @property
    def predicted_tokens(self) -> int:
        """What the meter said the request would take."""
        return self.measurement.total_tokens

    @property
    def reported_tokens(self) -> int | None:
        """The prompt the provider reported, if it did."""
        return self.usage.prompt_tokens if self.usage is not None else None

    @property
    def anchored(self) -> bool:
        """True when the prediction stood on an earlier call's usage (the meter's
        accuracy claim covers these; a first call can only be estimated)."""
        return self.measurement.baseline.kind == "usage"

    @property
    def error(self) -> float | None:
        """``|predicted - reported| / reported``, or ``None`` without a positive report."""
        reported = self.reported_tokens
        if not reported:
            return None
        return abs(self.predicted_tokens - reported) / reported


def call_points(events: Sequence[Event]) -> list[tuple[int, Event]]:
    """``(revision the request went out at, assistant/message)`` for each call."""
    points = []
    sent: int | None = None
    for event in events:
        if event.type == "step/start":
            sent = None
        elif event.type in ("assistant/chunk", "assistant/message") and sent is None:
            sent = event.seq
        if event.type == "assistant/message":
            points.append((sent if sent is not None else event.seq, event))
            sent = None
    return points


class PrefixReader:
    """The first ``limit`` events of one session, as a ``LedgerReader``."""

    def __init__(self, session_id: str, events: Sequence[Event]) -> None:
        self._session_id = session_id
        self._events = events
        self.limit = 0

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> Sequence[Event]:
        if session_id != self._session_id:
            return []
        end = self.limit if stop is None else min(stop, self.limit)
        return self._events[start:end]
