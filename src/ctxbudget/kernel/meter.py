"""The segmented meter and its reports.

Estimates and provider figures are kept apart on purpose: a provider reports a
total, and writing it back into segments would dress the estimator's error up
as per-segment precision (a "tools: 3.2k" that is really a residual). Plans that
cut by segment would then cut on fiction. So a ``Report`` carries both side by
side and nothing ever overwrites one with the other.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ctxbudget.kernel.pressure import Pressure, classify
from ctxbudget.kernel.segments import CANONICAL_SEGMENTS, Segment

__all__ = [
    "Display",
    "Meter",
    "Report",
    "SegmentUsage",
]


@dataclass(frozen=True, slots=True)
class SegmentUsage:
    """Estimated tokens of one segment."""

    segment: Segment
    tokens: int


@dataclass(frozen=True, slots=True)
class Display:
    """What a UI shows: an unclamped ``input`` against a ``cap`` (<= 0: unknown cap).

    ``used`` is derived, never stored, so it cannot disagree with its sources.
    """

    input: int
    cap: int

    @property
    def used(self) -> int:
        """``min(input, cap)``; ``input`` itself when the cap is unknown."""
        if self.cap <= 0:
            return self.input
        return min(self.input, self.cap)

    @property
    def overflow(self) -> bool:
        """Whether the input is past a known cap."""
        return self.cap > 0 and self.input > self.cap


@dataclass(frozen=True, slots=True)
class Report:
    """One metering: segment estimates, the provider's figure and the cap, side by side.

    ``provider`` <= 0 means the provider reported nothing for this request.
    """

    segments: tuple[SegmentUsage, ...]
    input: int
    cap: int
    provider: int = 0

    def display(self) -> Display:
        """The estimate as displayed (clamping happens here, the estimate stays raw)."""
        return Display(self.input, self.cap)

    def drift(self) -> int:
        """Provider figure minus estimate (positive: the estimate is low); 0 with no figure.

        An observation of the estimator's bias only; never feed it into a cut.
        """
        if self.provider <= 0:
            return 0
        return self.provider - self.input

    def pressure(self) -> Pressure:
        """The pressure level of the estimate against the cap (``classify``)."""
        return classify(self.input, self.cap)

    def provider_display(self) -> Display:
        """The provider's figure as displayed, or the estimate when there is none.

        Falling back keeps a UI from showing a made-up 0 before the first response.
        """
        if self.provider <= 0:
            return self.display()
        return Display(self.provider, self.cap)


class Meter:
    """Token estimates per segment. Safe to share between threads.

    A negative count is metered as 0: it is an estimator bug, and adding it would
    silently erase another part of the total. An empty segment name is metered and
    reported like any other; hiding it would make the total lie.
    """

    __slots__ = ("_lock", "_tokens")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: dict[Segment, int] = {}

    def add(self, segment: Segment, tokens: int) -> None:
        """Add ``tokens`` (negative counts as 0) to ``segment``."""
        with self._lock:
            self._tokens[segment] = self._tokens.get(segment, 0) + max(tokens, 0)

    def shrink(self, segment: Segment, tokens: int) -> int:
        """Subtract up to ``tokens`` from ``segment`` alone; return what was removed.

        Compaction rewrites the next prompt without a model call, so no fresh
        provider figure arrives until the next turn: without this the meter would
        keep showing pressure that no longer exists. The result is clamped at what
        the segment holds (a return below ``tokens`` means it ran out); other
        segments are never touched. Non-positive input is a no-op returning 0.
        """
        if tokens <= 0:
            return 0
        with self._lock:
            held = self._tokens.get(segment, 0)
            removed = min(tokens, held)
            if removed:
                self._tokens[segment] = held - removed
            return removed

    def reset(self) -> None:
        """Forget every segment (start a new metering round)."""
        with self._lock:
            self._tokens.clear()

    def tokens(self, segment: Segment) -> int:
        """Tokens metered for ``segment``; 0 if never metered."""
        with self._lock:
            return self._tokens.get(segment, 0)

    def total(self) -> int:
        """The sum over all segments: the kernel's one figure for the input."""
        with self._lock:
            return sum(self._tokens.values())

    def segments(self) -> list[SegmentUsage]:
        """Canonical segments first in their fixed order (0 when unmetered), then host
        segments sorted by name."""
        with self._lock:
            return _ordered(self._tokens)

    def snapshot(self, cap: int, *, provider: int = 0) -> Report:
        """A detached report; ``cap`` <= 0 means no window constraint this round."""
        with self._lock:
            usages = _ordered(self._tokens)
        return Report(
            segments=tuple(usages),
            input=sum(u.tokens for u in usages),
            cap=cap,
            provider=provider,
        )


def _ordered(tokens: dict[Segment, int]) -> list[SegmentUsage]:
    canonical = [SegmentUsage(s, tokens.get(s, 0)) for s in CANONICAL_SEGMENTS]
    hosts = sorted(s for s in tokens if s not in CANONICAL_SEGMENTS)
    return canonical + [SegmentUsage(s, tokens[s]) for s in hosts]
