"""What ``TokenMeter.measure`` returns: a detached, deeply immutable snapshot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ctxbudget.kernel import Pressure
from ctxbudget.ledger.vocabulary import USAGE_FIELDS
from ctxbudget.meter.anchor_rule import UsageVerdict
from ctxbudget.meter.nodes import Node

__all__ = [
    "NO_BASELINE",
    "Baseline",
    "Measurement",
    "Usage",
]


@dataclass(frozen=True, slots=True)
class Usage:
    """Provider-reported token counts of one call; the buckets are disjoint.

    ``input_tokens`` is uncached input only; ``reasoning_tokens`` is part of
    ``output_tokens`` and never added on top.
    """

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None

    @classmethod
    def from_json(cls, usage: Mapping[str, Any]) -> Usage:
        """From an ``assistant/message`` ``usage`` object (fields: ``vocabulary.USAGE_FIELDS``)."""
        counts: dict[str, Any] = {
            f.name: _optional_int(usage.get(f.name)) if f.optional else int(usage[f.name])
            for f in USAGE_FIELDS
        }
        return cls(**counts)

    @property
    def total_tokens(self) -> int:
        """Input + cache read + cache write + output (reasoning is inside output)."""
        return (
            self.input_tokens
            + (self.cache_read_tokens or 0)
            + (self.cache_write_tokens or 0)
            + self.output_tokens
        )

    @property
    def prompt_tokens(self) -> int:
        """The prompt the provider saw: input + cache read + cache write."""
        return self.total_tokens - self.output_tokens


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True, slots=True)
class Baseline:
    """Where a measurement starts: nothing, a full estimate, or the provider's usage."""

    kind: Literal["none", "estimated", "usage"]
    tokens: int
    usage: Usage | None = None


NO_BASELINE = Baseline("none", 0)


@dataclass(frozen=True, slots=True)
class Measurement:
    """Context pressure of one session at ``log_revision`` (events folded).

    ``total_tokens`` = ``max(0, baseline.tokens + surface_delta_tokens)``, request and
    response pressure (a usage baseline includes the provider's output tokens).
    ``nodes`` prices the current surface head to tail; ``surface_tokens`` is their sum.
    ``delta_scale`` is the factor the priced delta was multiplied by: the session's
    learned correction when the meter calibrates from usage, otherwise 1.0.
    ``usage_verdict`` says what the anchor rule made of the latest call's usage for
    this envelope: whether it anchors ``baseline`` and why (``docs/meter.md``).
    """

    log_revision: int
    baseline: Baseline
    surface_delta_tokens: int
    total_tokens: int
    surface_tokens: int
    nodes: Sequence[Node]
    capacity: int
    pressure: Pressure
    delta_scale: float = 1.0
    usage_verdict: UsageVerdict = "no-usage"
