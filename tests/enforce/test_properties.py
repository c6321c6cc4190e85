"""Properties of enforce_budget() over random OpenAI Chat, OpenAI Responses and Anthropic
requests with tool calls and mixed English/CJK text."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ctxbudget.content.pairing import check_pairs
from ctxbudget.enforce import (
    DEFAULT_NEVER_TRIM_HEADERS,
    BudgetConfig,
    Enforced,
    enforce_budget,
    protected_texts,
)
from ctxbudget.errors import BudgetExceeded
from ctxbudget.formats import parse_request
from ctxbudget.testing import FakeArchive, FakeSummarizer, RecordingSink
from ctxbudget.tokens import CJKCounter
from tests.formats.sdk import validate
from tests.formats.strategies import bodies

COUNTER = CJKCounter()


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    fmt, body = draw(bodies())
    full = enforce_budget(body, BudgetConfig(), format=fmt, counter=COUNTER).estimate_before
    budget = max(1, int(full * draw(st.floats(0.2, 1.2))))
    return {
        "format": fmt,
        "body": body,
        "config": BudgetConfig(
            max_input_tokens=budget,
            tool_outputs_kept=draw(st.integers(0, 4)),
            summary_keeps_recent_turns=draw(st.integers(0, 4)),
        ),
        "cost_pressure": draw(st.booleans()),
        "cache_efficiency": draw(st.none() | st.floats(0, 1)),
        "hard_cap": draw(st.none() | st.integers(1, full * 2)),
        "helpers": draw(st.booleans()),
    }


def run(case: dict[str, Any], body: Any = None) -> Enforced:
    helpers = case["helpers"]
    return enforce_budget(
        case["body"] if body is None else body,
        case["config"],
        format=case["format"],
        counter=COUNTER,
        cost_pressure=case["cost_pressure"],
        cache_efficiency=case["cache_efficiency"],
        hard_cap=case["hard_cap"],
        summarizer=FakeSummarizer("- 摘要: the user read files") if helpers else None,
        archive=FakeArchive() if helpers else None,
        sink=RecordingSink(),
    )


def outcome(case: dict[str, Any]) -> Enforced | BudgetExceeded:
    try:
        return run(case)
    except BudgetExceeded as error:
        return error


def allowed(case: dict[str, Any]) -> int:
    """The most a compressed request may cost: the budget, or the hard cap if lower."""
    cap = case["hard_cap"]
    budget: int = case["config"].max_input_tokens
    return budget if cap is None else min(budget, cap)


PROPERTY_SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@PROPERTY_SETTINGS
@given(cases())
def test_enforce_keeps_its_promises(case: dict[str, Any]) -> None:
    fmt, body = case["format"], case["body"]
    before = copy.deepcopy(body)
    result = outcome(case)
    assert body == before, "the input is unchanged"
    if isinstance(result, BudgetExceeded):
        assert result.estimated_tokens > result.budget_tokens, "refused only when over"
        assert result.largest_segment in {"system", "tools", "conversation", "pending"}
        event(f"refused after {len(result.stages_tried)} stage(s)")
        return
    event(f"stages: {result.info.stages_text or 'none'}")
    request = parse_request(result.body, fmt)
    original = parse_request(body, fmt)
    validate(result.body, fmt)
    assert check_pairs(request.messages()).ok, "tool pairs stay intact"
    headers = DEFAULT_NEVER_TRIM_HEADERS
    assert protected_texts(request, headers) == protected_texts(original, headers)
    pending = [t.message for t in request.pending]
    assert pending == [t.message for t in original.pending], "the pending turn is never changed"
    recount = enforce_budget(result.body, BudgetConfig(), format=fmt, counter=COUNTER)
    assert recount.estimate_before == result.estimate_after
    if result.info.compressed:
        assert result.estimate_after <= allowed(case), "a compressed request fits"
    else:
        assert result.body is body
        cap = case["hard_cap"]
        skipped_by_guard = case["cache_efficiency"] is not None and (
            cap is None or result.estimate_after <= cap
        )
        assert result.estimate_after <= allowed(case) or skipped_by_guard
    again = run(case, result.body)
    assert again.body is result.body, "enforcing an enforced request changes nothing"
    assert not again.info.compressed
