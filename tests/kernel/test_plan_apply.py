"""Compaction planning and apply (seed 000: BuildPlan, Apply, NetRemovedTokens)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.errors import (
    ApplyRefusedError,
    ArchiveFailedError,
    CutoffTooLowError,
    EmptyPlanError,
    NotWiredError,
    PlanInconsistentError,
    PlanMismatchError,
    PlanRefusedError,
    SummarizeFailedError,
    TooFewItemsError,
    TooFewToSummarizeError,
)
from ctxbudget.kernel import (
    FORCE_KEEP_ITEMS,
    MIN_EFFECTIVE_ITEMS,
    MIN_SUMMARIZE_ITEMS,
    SUMMARY_ITEM_ID,
    Item,
    Plan,
    PlanInput,
    apply,
    apply_async,
    build_plan,
    net_removed_tokens,
)
from ctxbudget.testing import (
    AsyncFakeItemArchive,
    AsyncFakeItemSummarizer,
    FakeItemArchive,
    FakeItemSummarizer,
)


def items(n: int, tokens: int = 100, prefix: str = "m") -> list[Item]:
    return [Item(f"{prefix}{i}", tokens) for i in range(n)]


def test_constants() -> None:
    assert (FORCE_KEEP_ITEMS, MIN_SUMMARIZE_ITEMS, MIN_EFFECTIVE_ITEMS) == (6, 2, 8)
    assert SUMMARY_ITEM_ID == "summary"


@pytest.mark.parametrize(
    ("n", "keep", "cutoff", "tail"),
    [
        (8, 6, 2, 6),
        (12, 6, 6, 6),
        (16, 6, 10, 6),
        (10, 4, 6, 4),
        (10, 8, 2, 8),
        (8, 2, 6, 2),  # a tail below the baseline is used as given
        (8, 0, 8, 0),  # no tail
        (16, -3, 16, 0),  # negative means no tail
    ],
)
def test_build_plan_known_answers(n: int, keep: int, cutoff: int, tail: int) -> None:
    plan = build_plan(PlanInput(items=n, keep_tail=keep))
    assert plan == Plan(
        items=n, cutoff=cutoff, summarize_items=cutoff, keep_tail_items=tail, gross_removed_tokens=0
    )


def test_build_plan_gross_removed_tokens() -> None:
    plan = build_plan(PlanInput(items=10, keep_tail=4, item_tokens=2_500))
    assert plan.cutoff == 6
    assert plan.gross_removed_tokens == 15_000
    assert build_plan(PlanInput(items=16, keep_tail=6, item_tokens=16)).gross_removed_tokens == 160
    assert build_plan(PlanInput(items=16, keep_tail=6, item_tokens=-4)).gross_removed_tokens == 0


@pytest.mark.parametrize(
    ("n", "keep", "error"),
    [
        (0, 0, TooFewItemsError),
        (1, 0, TooFewItemsError),
        (7, 0, TooFewItemsError),
        (7, 10, TooFewItemsError),  # guard 1 is checked first
        (7, 6, TooFewItemsError),  # shrinking the tail cannot lower the threshold
        (7, 1, TooFewItemsError),
        (10, 10, CutoffTooLowError),
        (10, 12, CutoffTooLowError),
        (10, 9, TooFewToSummarizeError),
        (8, 7, TooFewToSummarizeError),
    ],
)
def test_build_plan_guards(n: int, keep: int, error: type[PlanRefusedError]) -> None:
    with pytest.raises(error) as caught:
        build_plan(PlanInput(items=n, keep_tail=keep))
    assert isinstance(caught.value, PlanRefusedError)
    assert caught.value.code in {"too_few_items", "cutoff_too_low", "too_few_to_summarize"}
    assert str(caught.value)


@given(st.integers(-5, 500), st.integers(-50, 500), st.integers(-10, 10_000))
def test_built_plan_is_consistent(n: int, keep: int, item_tokens: int) -> None:
    try:
        plan = build_plan(PlanInput(items=n, keep_tail=keep, item_tokens=item_tokens))
    except PlanRefusedError:
        return
    assert plan.cutoff + plan.keep_tail_items == plan.items == n
    assert plan.summarize_items == plan.cutoff >= MIN_SUMMARIZE_ITEMS
    assert plan.gross_removed_tokens == (plan.cutoff * item_tokens if item_tokens > 0 else 0)


@pytest.mark.parametrize(
    ("gross", "summary", "net"), [(160, 2, 158), (100, 100, 0), (10, 50, 0), (-5, 0, 0)]
)
def test_net_removed_tokens(gross: int, summary: int, net: int) -> None:
    assert net_removed_tokens(gross, summary) == net


def test_apply_archives_then_summarizes_and_splices() -> None:
    plan = build_plan(PlanInput(items=16, keep_tail=6, item_tokens=16))
    everything = items(16, 16)
    order: list[str] = []
    archive = FakeItemArchive(calls=order)
    summarizer = FakeItemSummarizer(tokens=2)
    result = apply(plan, everything[:10], everything[10:], archive, summarizer)

    assert order == ["archive"]
    assert archive.get(result.locator) == tuple(everything[:10])
    assert summarizer.calls == [tuple(everything[:10])]
    assert result.segment == (Item(SUMMARY_ITEM_ID, 2), *everything[10:])
    assert result.gross_removed_tokens == 160
    assert result.summary.tokens == 2
    assert result.snapshot_delta() == -158
    assert net_removed_tokens(result.gross_removed_tokens, result.summary.tokens) == 158


def test_snapshot_delta_is_positive_when_summary_is_longer() -> None:
    plan = build_plan(PlanInput(items=8, keep_tail=6, item_tokens=5))
    everything = items(8, 5)
    result = apply(
        plan, everything[:2], everything[2:], FakeItemArchive(), FakeItemSummarizer(tokens=30)
    )
    assert result.snapshot_delta() == 20
    assert net_removed_tokens(result.gross_removed_tokens, result.summary.tokens) == 0


GOOD = Plan(items=10, cutoff=4, summarize_items=4, keep_tail_items=6, gross_removed_tokens=0)


@pytest.mark.parametrize(
    ("plan", "n_leading", "n_tail", "error"),
    [
        (Plan(0, 0, 0, 0, 0), 0, 0, EmptyPlanError),
        (replace(GOOD, cutoff=0), 4, 6, EmptyPlanError),
        (replace(GOOD, summarize_items=0, keep_tail_items=10), 0, 10, EmptyPlanError),
        (replace(GOOD, cutoff=5), 4, 6, PlanInconsistentError),
        (replace(GOOD, items=11), 4, 6, PlanInconsistentError),
        (replace(GOOD, keep_tail_items=-1, items=3), 4, 6, PlanInconsistentError),
        (GOOD, 3, 6, PlanMismatchError),
        (GOOD, 4, 7, PlanMismatchError),
    ],
)
def test_apply_refusals_have_no_side_effects(
    plan: Plan, n_leading: int, n_tail: int, error: type[ApplyRefusedError]
) -> None:
    archive, summarizer = FakeItemArchive(), FakeItemSummarizer()
    with pytest.raises(error):
        apply(plan, items(n_leading), items(n_tail, prefix="t"), archive, summarizer)
    assert archive.calls == []
    assert summarizer.calls == []


def test_apply_not_wired() -> None:
    summarizer = FakeItemSummarizer()
    with pytest.raises(NotWiredError, match="archive"):
        apply(GOOD, items(4), items(6), None, summarizer)
    assert summarizer.calls == []
    archive = FakeItemArchive()
    with pytest.raises(NotWiredError, match="summarizer"):
        apply(GOOD, items(4), items(6), archive, None)
    assert archive.calls == []


def test_summarizer_failure_reports_the_archive_locator() -> None:
    archive = FakeItemArchive()
    summarizer = FakeItemSummarizer(fail_with=TimeoutError("model timed out"))
    with pytest.raises(SummarizeFailedError) as caught:
        apply(GOOD, items(4), items(6), archive, summarizer)
    assert caught.value.locator == "fake://archive/0"
    assert "fake://archive/0" in str(caught.value)
    assert archive.batches == [tuple(items(4))]


def test_archive_failure_never_calls_summarizer() -> None:
    archive = FakeItemArchive(fail_with=OSError("disk full"))
    summarizer = FakeItemSummarizer()
    with pytest.raises(ArchiveFailedError):
        apply(GOOD, items(4), items(6), archive, summarizer)
    assert summarizer.calls == []


def test_apply_async_matches_apply() -> None:
    plan = build_plan(PlanInput(items=16, keep_tail=6, item_tokens=16))
    everything = items(16, 16)
    sync = apply(
        plan, everything[:10], everything[10:], FakeItemArchive(), FakeItemSummarizer(tokens=2)
    )
    result = asyncio.run(
        apply_async(
            plan,
            everything[:10],
            everything[10:],
            AsyncFakeItemArchive(),
            AsyncFakeItemSummarizer(FakeItemSummarizer(tokens=2)),
        )
    )
    assert result == sync


def test_apply_async_refuses_without_side_effects() -> None:
    archive, summarizer = AsyncFakeItemArchive(), AsyncFakeItemSummarizer()
    with pytest.raises(PlanMismatchError):
        asyncio.run(apply_async(GOOD, items(2), items(6), archive, summarizer))
    assert archive.inner.calls == []
    assert summarizer.inner.calls == []


def test_apply_async_summarizer_failure_keeps_locator() -> None:
    summarizer = AsyncFakeItemSummarizer(FakeItemSummarizer(fail_with=RuntimeError("rate limited")))
    with pytest.raises(SummarizeFailedError) as caught:
        asyncio.run(apply_async(GOOD, items(4), items(6), AsyncFakeItemArchive(), summarizer))
    assert caught.value.locator == "fake://archive/0"


plans = st.builds(
    Plan,
    items=st.integers(-3, 30),
    cutoff=st.integers(-3, 30),
    summarize_items=st.integers(-3, 30),
    keep_tail_items=st.integers(-3, 30),
    gross_removed_tokens=st.integers(0, 1000),
)


@given(
    plans,
    st.integers(0, 30),
    st.integers(0, 30),
    st.booleans(),
    st.booleans(),
)
def test_rejected_apply_never_calls_archive_or_summarizer(
    plan: Plan, n_leading: int, n_tail: int, wire_archive: bool, wire_summarizer: bool
) -> None:
    archive, summarizer = FakeItemArchive(), FakeItemSummarizer()
    try:
        apply(
            plan,
            items(n_leading),
            items(n_tail, prefix="t"),
            archive if wire_archive else None,
            summarizer if wire_summarizer else None,
        )
    except ApplyRefusedError:
        assert archive.calls == []
        assert summarizer.calls == []
    else:
        assert archive.calls == ["archive"]
        assert len(summarizer.calls) == 1
