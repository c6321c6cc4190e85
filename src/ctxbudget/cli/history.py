"""What ``session history`` charts: the meter's prediction before each call beside the usage.

The meter is the library's (``TokenMeter``); it is only shown the log as it stood
just before each ``assistant/message``, through a read-only view, so each point
is exactly what a live meter would have predicted at that moment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ctxbudget.ledger import Event
from ctxbudget.meter import Measurement, TokenMeter, Usage
from ctxbudget.tokens import TokenCounter

__all__ = ["CallPoint", "call_history"]


@dataclass(frozen=True, slots=True)
class CallPoint:
    """One model call: what the meter predicted before it, what the provider reported."""

    seq: int
    model: str
    predicted: Measurement
    """The measurement of the log just before the call (its next prompt)."""
    after: Measurement
    """The measurement once the call is logged (its pressure after the call)."""
    usage: Usage | None

    @property
    def reported_prompt(self) -> int | None:
        """The provider's prompt size (input + cache read + cache write), if recorded."""
        return self.usage.prompt_tokens if self.usage is not None else None

    @property
    def error_pct(self) -> float | None:
        """Prediction minus report, in % of the report; ``None`` without usage or anchor.

        A call is scored only when the prediction stood on an earlier call's usage:
        before the first report the meter can only guess the parts no log holds.
        """
        reported = self.reported_prompt
        if not reported or self.predicted.baseline.kind != "usage":
            return None
        return 100 * (self.predicted.total_tokens - reported) / reported


class _LogUpTo:
    """A ``LedgerReader`` over one session's events that ends at ``end`` (movable forward)."""

    def __init__(self, events: Sequence[Event]) -> None:
        self._events = events
        self.end = 0

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> Sequence[Event]:
        stop = self.end if stop is None else min(stop, self.end)
        return self._events[max(start, 0) : max(stop, 0)]


def call_history(
    events: Sequence[Event], counter: TokenCounter | None, window: int
) -> list[CallPoint]:
    """Every ``assistant/message`` of one session's ``events``, as a ``CallPoint``.

    ``events`` are the whole session in seq order; ``counter`` ``None`` is the
    meter's own default.
    """
    view = _LogUpTo(events)
    meter = TokenMeter(view, counter=counter, context_window=window)
    points: list[CallPoint] = []
    for event in events:
        if event.type != "assistant/message":
            continue
        session = event.session_id
        view.end = event.seq
        predicted = meter.measure(session)
        view.end = event.seq + 1
        after = meter.measure(session)
        usage = event.data.get("usage")
        provenance = event.data.get("provenance") or {}
        points.append(
            CallPoint(
                seq=event.seq,
                model=str(provenance.get("model", "")),
                predicted=predicted,
                after=after,
                usage=Usage.from_json(usage) if usage else None,
            )
        )
    return points
