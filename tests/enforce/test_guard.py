"""The cache guard and the overshoot ratio (reference vectors 20-27)."""

from __future__ import annotations

import pytest

from ctxbudget.enforce import overshoot_ratio, should_skip_for_cache


@pytest.mark.parametrize(
    ("eff", "overshoot", "min_eff", "max_overshoot", "skip"),
    [
        pytest.param(0.99, 0.0, 0.0, 0.15, False, id="disabled-when-min-eff-zero"),
        pytest.param(0.6, 0.1, 0.5, 0.15, True, id="hot-and-mild"),
        pytest.param(0.2, 0.1, 0.5, 0.15, False, id="cold-cache"),
        pytest.param(0.9, 0.5, 0.5, 0.15, False, id="large-overshoot"),
        pytest.param(0.5, 0.15, 0.5, 0.15, False, id="boundaries-are-exclusive"),
        pytest.param(0.9, 0.0, -1.0, 0.15, False, id="negative-min-eff-disables"),
        pytest.param(None, 0.0, 0.5, 0.15, False, id="unknown-efficiency"),
    ],
)
def test_should_skip_for_cache(
    eff: float | None, overshoot: float, min_eff: float, max_overshoot: float, skip: bool
) -> None:
    decision = should_skip_for_cache(
        eff, overshoot, min_eff=min_eff, max_overshoot=max_overshoot, estimated=1, hard_cap=None
    )
    assert decision is skip


def test_overshoot_ratio() -> None:
    assert overshoot_ratio(1150, 1000) == 0.1499999999999999
    assert overshoot_ratio(500, 1000) == -0.5
    assert overshoot_ratio(500, 0) == 0.0
    ratio = overshoot_ratio(1150, 1000)
    assert should_skip_for_cache(
        0.6, ratio, min_eff=0.5, max_overshoot=0.15, estimated=1150, hard_cap=None
    )


def test_the_guard_never_lets_a_request_past_the_hard_cap() -> None:
    args = {"min_eff": 0.5, "max_overshoot": 0.15}
    assert should_skip_for_cache(0.9, 0.1, **args, estimated=1100, hard_cap=1100)
    assert not should_skip_for_cache(0.9, 0.1, **args, estimated=1101, hard_cap=1100)
