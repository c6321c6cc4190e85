"""Segmented meter and reports (seed 000: Meter, Report, Display)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.kernel import (
    CANONICAL_SEGMENTS,
    CONVERSATION,
    MCP,
    SYSTEM,
    TOOLS,
    Display,
    Meter,
    Pressure,
    Report,
    SegmentUsage,
)


def test_canonical_segments_in_seed_order() -> None:
    assert CANONICAL_SEGMENTS == ("system", "tools", "rules", "skills", "mcp", "conversation")


def test_unmetered_meter_lists_six_zero_segments() -> None:
    assert Meter().segments() == [SegmentUsage(s, 0) for s in CANONICAL_SEGMENTS]


def test_segments_canonical_first_then_hosts_by_name() -> None:
    meter = Meter()
    meter.add(MCP, 5)
    meter.add("zeta", 1)
    meter.add(SYSTEM, 3)
    meter.add("alpha", 2)
    meter.add(CONVERSATION, 4)
    assert meter.segments() == [
        SegmentUsage("system", 3),
        SegmentUsage("tools", 0),
        SegmentUsage("rules", 0),
        SegmentUsage("skills", 0),
        SegmentUsage("mcp", 5),
        SegmentUsage("conversation", 4),
        SegmentUsage("alpha", 2),
        SegmentUsage("zeta", 1),
    ]
    assert meter.total() == 15


def test_negative_add_counts_as_zero() -> None:
    meter = Meter()
    meter.add(SYSTEM, 10)
    meter.add(SYSTEM, -7)
    assert meter.tokens(SYSTEM) == 10
    assert meter.total() == 10


def test_empty_segment_name_is_metered_and_reported() -> None:
    meter = Meter()
    meter.add("", 7)
    assert meter.tokens("") == 7
    assert meter.total() == 7
    assert meter.segments()[-1] == SegmentUsage("", 7)


def test_tokens_of_unknown_segment_is_zero() -> None:
    assert Meter().tokens("nope") == 0


def test_shrink_known_answers() -> None:
    meter = Meter()
    meter.add(SYSTEM, 2_000)
    meter.add(CONVERSATION, 60_000)
    assert meter.shrink(CONVERSATION, 20_000) == 20_000
    assert meter.tokens(CONVERSATION) == 40_000
    assert meter.total() == 42_000
    assert meter.shrink(CONVERSATION, 999_999) == 40_000
    assert meter.tokens(CONVERSATION) == 0
    assert meter.tokens(SYSTEM) == 2_000
    assert meter.total() == 2_000


@pytest.mark.parametrize("amount", [0, -5])
def test_shrink_non_positive_is_noop(amount: int) -> None:
    meter = Meter()
    meter.add(CONVERSATION, 100)
    assert meter.shrink(CONVERSATION, amount) == 0
    assert meter.tokens(CONVERSATION) == 100


def test_shrink_unmetered_segment_removes_nothing() -> None:
    meter = Meter()
    meter.add(SYSTEM, 5)
    assert meter.shrink(TOOLS, 3) == 0
    assert meter.total() == 5


def test_reset_clears_everything() -> None:
    meter = Meter()
    meter.add(SYSTEM, 5)
    meter.add("host", 5)
    meter.reset()
    assert meter.total() == 0
    assert meter.segments() == [SegmentUsage(s, 0) for s in CANONICAL_SEGMENTS]


def test_snapshot_is_detached() -> None:
    meter = Meter()
    meter.add(CONVERSATION, 10)
    report = meter.snapshot(100)
    meter.add(CONVERSATION, 90)
    assert report.input == 10
    assert report.cap == 100
    assert report.provider == 0
    assert {u.segment: u.tokens for u in report.segments}[CONVERSATION] == 10


def test_meter_is_thread_safe() -> None:
    meter = Meter()

    def work() -> None:
        for _ in range(2_000):
            meter.add(CONVERSATION, 1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert meter.total() == 8_000


@pytest.mark.parametrize(
    ("input_", "cap", "used", "overflow"),
    [
        (80, 100, 80, False),
        (100, 100, 100, False),
        (135, 100, 100, True),
        (135, 0, 135, False),
        (135, -1, 135, False),
    ],
)
def test_display_used_and_overflow(input_: int, cap: int, used: int, overflow: bool) -> None:
    shown = Display(input_, cap)
    assert shown.used == used
    assert shown.overflow is overflow


def test_report_drift_and_provider_display() -> None:
    report = Report(segments=(), input=62_000, cap=100_000, provider=80_000)
    assert report.drift() == 18_000
    assert report.display() == Display(62_000, 100_000)
    assert report.provider_display() == Display(80_000, 100_000)


def test_report_without_provider_figure_falls_back_to_estimate() -> None:
    report = Report(segments=(), input=500, cap=1_000, provider=0)
    assert report.provider_display() == Display(500, 1_000)
    assert report.drift() == 0


def test_snapshot_carries_provider_figure_without_touching_segments() -> None:
    meter = Meter()
    meter.add(SYSTEM, 100)
    report = meter.snapshot(1_000, provider=150)
    assert report.input == 100
    assert report.drift() == 50
    assert meter.tokens(SYSTEM) == 100


segment_names = st.one_of(st.sampled_from(CANONICAL_SEGMENTS), st.text(max_size=5))
operations = st.lists(st.tuples(segment_names, st.integers(-1_000, 1_000_000)), max_size=40)


@given(operations)
def test_total_equals_sum_of_segments(ops: list[tuple[str, int]]) -> None:
    meter = Meter()
    for segment, tokens in ops:
        meter.add(segment, tokens)
    assert meter.total() == sum(u.tokens for u in meter.segments())
    assert meter.snapshot(0).input == meter.total()


@given(operations, segment_names, st.integers(-1_000, 2_000_000))
def test_shrink_touches_only_its_segment_and_never_goes_negative(
    ops: list[tuple[str, int]], target: str, amount: int
) -> None:
    meter = Meter()
    for segment, tokens in ops:
        meter.add(segment, tokens)
    before = {u.segment: u.tokens for u in meter.segments()}
    removed = meter.shrink(target, amount)
    after = {u.segment: u.tokens for u in meter.segments()}
    assert 0 <= removed <= max(amount, 0)
    assert after.get(target, 0) == before.get(target, 0) - removed
    assert after.get(target, 0) >= 0
    for segment, tokens in before.items():
        if segment != target:
            assert after[segment] == tokens


def test_report_pressure_classifies_the_estimate() -> None:
    assert Report(segments=(), input=75, cap=100).pressure() is Pressure.TIGHT
    assert Report(segments=(), input=10, cap=0).pressure() is Pressure.CRITICAL
