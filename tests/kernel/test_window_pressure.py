"""Input cap and pressure levels (seed 000: MaxInput, MaxInputWithHostCap, Classify)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.kernel import (
    CRITICAL_AT_PCT,
    MIN_INPUT_TOKENS,
    TIGHT_AT_PCT,
    Pressure,
    classify,
    max_input,
    max_input_with_host_cap,
)


@pytest.mark.parametrize(
    ("window", "base", "reserve", "expected"),
    [
        (1_000_000, 1_000_000, 64_000, 936_000),
        (1_000_000, 0, 64_000, 936_000),
        (200_000, 128_000, 8_000, 128_000),
        (200_000, 195_000, 8_000, 192_000),
        (10_000, 0, 10_000, 1),  # the reserve eats the window: floor
        (10_000, 5_000, 20_000, 1),  # the reserve is larger than the window: floor
        (0, 128_000, 64_000, 128_000),  # unknown window: base as is
        (200_000, 128_000, 0, 128_000),  # no reserve: base as is
        (200_000, 300_000, 0, 300_000),  # no reserve: a wider host cap is not narrowed
        (0, 0, 0, 0),  # nothing asked: nothing invented
        (-5, -1, -1, -1),  # early return gives the base back as is
        (128_000, -1, 8_000, 120_000),  # negative base means no host cap
    ],
)
def test_max_input(window: int, base: int, reserve: int, expected: int) -> None:
    assert max_input(window, base, reserve) == expected


def test_min_input_tokens_is_one() -> None:
    assert MIN_INPUT_TOKENS == 1


@pytest.mark.parametrize(
    ("window", "base", "reserve", "host", "expected"),
    [
        (1_000_000, 128_000, 0, 64_000, 64_000),
        (100_000, 0, 8_000, 150_000, 150_000),  # explicit cap wins, no window clamp
        (100_000, 0, 200_000, 5, 5),  # and no floor arithmetic either
        (1_000_000, 1_000_000, 64_000, 0, 936_000),
        (1_000_000, 1_000_000, 64_000, -3, 936_000),
    ],
)
def test_max_input_with_host_cap(
    window: int, base: int, reserve: int, host: int, expected: int
) -> None:
    assert max_input_with_host_cap(window, base, reserve, host) == expected


def test_thresholds() -> None:
    assert (TIGHT_AT_PCT, CRITICAL_AT_PCT) == (75, 90)


@pytest.mark.parametrize(
    ("input_", "capacity", "expected"),
    [
        (0, 1000, Pressure.NORMAL),
        (749, 1000, Pressure.NORMAL),
        (750, 1000, Pressure.TIGHT),
        (899, 1000, Pressure.TIGHT),
        (900, 1000, Pressure.CRITICAL),
        (1000, 1000, Pressure.CRITICAL),
        (1500, 1000, Pressure.CRITICAL),
        (3, 4, Pressure.TIGHT),
        (2, 3, Pressure.NORMAL),
        (9, 10, Pressure.CRITICAL),
        (95_999, 128_000, Pressure.NORMAL),
        (96_000, 128_000, Pressure.TIGHT),
        (115_199, 128_000, Pressure.TIGHT),
        (115_200, 128_000, Pressure.CRITICAL),
        (5, 0, Pressure.CRITICAL),  # unknown capacity is never "fine"
        (0, -1, Pressure.CRITICAL),
        (-1, 100, Pressure.NORMAL),
    ],
)
def test_classify(input_: int, capacity: int, expected: Pressure) -> None:
    assert classify(input_, capacity) is expected


def test_pressure_is_ordered_and_prints_lowercase() -> None:
    assert Pressure.NORMAL < Pressure.TIGHT < Pressure.CRITICAL
    assert [str(p) for p in Pressure] == ["normal", "tight", "critical"]
    assert f"{Pressure.TIGHT}" == "tight"


@given(st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9), st.integers(1, 10**9))
def test_classify_is_monotone_in_input(a: int, b: int, capacity: int) -> None:
    low, high = sorted((a, b))
    assert classify(low, capacity) <= classify(high, capacity)


@given(st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9), st.integers(-(10**9), 10**9))
def test_derived_cap_is_positive_when_reserving(window: int, base: int, reserve: int) -> None:
    cap = max_input(window, base, reserve)
    if reserve > 0 and window > 0:
        assert cap >= MIN_INPUT_TOKENS
        assert cap <= max(window - reserve, MIN_INPUT_TOKENS)
    else:
        assert cap == base
