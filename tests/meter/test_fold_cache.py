"""A meter that has seen many sessions holds bounded memory, and eviction changes no answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.errors import ConfigError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.meter.fold_cache import FOLD_BYTES, NODE_BYTES

from .script import Script

BUDGET = 10 * (FOLD_BYTES + 4 * NODE_BYTES)


def session(ledger: MemoryLedger, name: str, calls: int) -> Script:
    s = Script(ledger, name)
    for step in range(1, calls + 1):
        s.user(f"question {step} of {name}")
        s.call(f"answer {step}", usage={"input_tokens": 40 * step, "output_tokens": 3}, step=step)
    return s


def test_many_sessions_stay_within_the_byte_budget() -> None:
    ledger = MemoryLedger()
    meter = TokenMeter(ledger, fold_cache_bytes=BUDGET)
    for i in range(200):
        session(ledger, f"s{i}", 2)
        meter.measure(f"s{i}")
        assert meter.cached_bytes <= BUDGET
    assert 1 < meter.cached_sessions < 200


def test_an_evicted_session_is_folded_again_to_the_same_answer() -> None:
    ledger = MemoryLedger()
    meter = TokenMeter(ledger, fold_cache_bytes=BUDGET)
    first = session(ledger, "first", 3)
    before = meter.measure("first")
    for i in range(50):
        session(ledger, f"other{i}", 2)
        meter.measure(f"other{i}")
    first.user("a message logged while the fold was evicted")
    after = meter.measure("first")
    assert after == TokenMeter(ledger).measure("first")
    assert after.log_revision == before.log_revision + 1


def test_one_fold_larger_than_the_budget_is_still_kept() -> None:
    ledger = MemoryLedger()
    meter = TokenMeter(ledger, fold_cache_bytes=1)
    session(ledger, "big", 3)
    meter.measure("big")
    assert meter.cached_sessions == 1


@pytest.mark.parametrize("size", [0, -1, 1.5, True])
def test_the_budget_must_be_a_positive_integer(size: object) -> None:
    with pytest.raises(ConfigError, match="fold_cache_bytes"):
        TokenMeter(MemoryLedger(), fold_cache_bytes=size)  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.booleans()), min_size=1, max_size=40))
def test_any_access_pattern_measures_as_a_fresh_meter(steps: list[tuple[int, bool]]) -> None:
    """Whatever was evicted, every measurement equals one by a meter with nothing cached."""
    ledger = MemoryLedger()
    scripts = {i: session(ledger, f"s{i}", 1) for i in range(8)}
    meter = TokenMeter(ledger, fold_cache_bytes=3 * (FOLD_BYTES + 4 * NODE_BYTES))
    for index, grow in steps:
        if grow:
            scripts[index].user("more")
        assert meter.measure(f"s{index}") == TokenMeter(ledger).measure(f"s{index}")
        assert meter.cached_bytes <= meter.fold_cache_bytes or meter.cached_sessions == 1
