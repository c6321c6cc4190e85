"""Pressure levels: how close the input is to its capacity."""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "CRITICAL_AT_PCT",
    "TIGHT_AT_PCT",
    "Pressure",
    "classify",
]

TIGHT_AT_PCT: Final = 75
"""Usage percentage at which the level becomes ``TIGHT``."""
CRITICAL_AT_PCT: Final = 90
"""Usage percentage at which the level becomes ``CRITICAL``."""


class Pressure(enum.IntEnum):
    """Ordered levels: ``NORMAL < TIGHT < CRITICAL``."""

    NORMAL = 0
    """Plenty of room; nothing to do."""
    TIGHT = 1
    """Close to the cap; time to prepare a compaction."""
    CRITICAL = 2
    """Over the cap or nearly so; the next request is likely to overflow."""

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, format_spec: str) -> str:
        return format(str(self), format_spec)


def classify(input: int, capacity: int) -> Pressure:
    """The pressure level of ``input`` tokens against ``capacity``.

    Integer arithmetic only: a float 0.9 can round 89.99% either way, and the
    answer must be reproducible. Reaching a threshold enters its level (exactly
    90% is critical: it is the last moment to act). An unknown capacity (<= 0)
    is critical, because "we don't know whether it fits" must not read as "fits".
    """
    if capacity <= 0:
        return Pressure.CRITICAL
    scaled = input * 100
    if scaled >= CRITICAL_AT_PCT * capacity:
        return Pressure.CRITICAL
    if scaled >= TIGHT_AT_PCT * capacity:
        return Pressure.TIGHT
    return Pressure.NORMAL
