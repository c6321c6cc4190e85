"""When a call's provider usage may anchor the next measurement (``docs/meter.md``).

The reference meter never trusts usage below its own heuristic estimate: with a
4-characters-per-token count, a lower report looks like a broken one. A
calibrated counter sits in the middle of the real tokenizers, so an efficient
tokenizer (GLM on Chinese, a large-vocabulary model on code) honestly reports
less than it; refusing that report would leave every later prediction too high.
The meter's default rule therefore trusts lower usage too, unless it is so low
that it cannot describe the request (under ``MIN_PLAUSIBLE_USAGE_RATIO`` of the
estimate): that is a truncated or mis-mapped report, not a tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

__all__ = [
    "DEFAULT_ANCHOR_RULE",
    "MIN_PLAUSIBLE_USAGE_RATIO",
    "SEED_ANCHOR_RULE",
    "AnchorRule",
    "UsageVerdict",
    "usage_trusted",
]

UsageVerdict: TypeAlias = Literal[
    "no-usage", "trusted", "trusted-below-estimate", "below-estimate", "implausible"
]
"""What the meter made of the usage that could anchor a measurement:

- ``no-usage``: no usage applies (none recorded, or the envelope changed since);
- ``trusted``: usage at or above the meter's own estimate anchors;
- ``trusted-below-estimate``: usage below the estimate anchors (default rule);
- ``below-estimate``: usage below the estimate is not trusted (the reference rule);
- ``implausible``: usage under ``MIN_PLAUSIBLE_USAGE_RATIO`` of the estimate is not trusted.
"""

MIN_PLAUSIBLE_USAGE_RATIO: Final = 0.5
"""Usage under this share of the meter's estimate is taken for a broken report."""


@dataclass(frozen=True, slots=True)
class AnchorRule:
    """Which usage anchors a measurement.

    ``trust_lower_usage``: usage below the meter's estimate anchors unless implausible
    (the default rule) or never (the seed's). ``per_envelope``: a measurement may
    anchor on the latest call *of its envelope*, not only on the latest call, so a
    session that switched models and back still stands on its own usage (the seed
    keeps one anchor: the latest call's).
    """

    trust_lower_usage: bool
    per_envelope: bool = False

    def judge(self, usage_tokens: int, estimated_tokens: int) -> UsageVerdict:
        """The verdict on usage reporting ``usage_tokens`` where the meter estimates
        ``estimated_tokens`` for the same call."""
        if usage_tokens >= estimated_tokens:
            return "trusted"
        if not self.trust_lower_usage:
            return "below-estimate"
        if usage_tokens < MIN_PLAUSIBLE_USAGE_RATIO * estimated_tokens:
            return "implausible"
        return "trusted-below-estimate"


def usage_trusted(verdict: UsageVerdict) -> bool:
    """True when usage with this verdict anchors the measurement."""
    return verdict in ("trusted", "trusted-below-estimate")


DEFAULT_ANCHOR_RULE: Final = AnchorRule(trust_lower_usage=True, per_envelope=True)
"""The rule of ``TokenMeter(ledger)`` with its default counter."""
SEED_ANCHOR_RULE: Final = AnchorRule(trust_lower_usage=False, per_envelope=False)
"""The seed's rule, kept with a counter you pass: its vectors hold exactly."""
