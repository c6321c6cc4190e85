"""No silent holes: the format is detected or refused, deep and hostile bodies are
``CtxBudgetError``s, and a caller's window always gives a cap."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import CtxBudgetError, FormatError
from ctxbudget.formats import (
    MAX_NESTING,
    detect_format,
    input_cap,
    meter_request,
    parse_request,
    render_request,
)
from ctxbudget.tokens import CJKCounter
from tests.formats.strategies import bodies
from tests.formats.test_formats import ANTHROPIC_BODY, OPENAI_BODY
from tests.formats.test_responses import BODY as RESPONSES_BODY


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (OPENAI_BODY, "openai"),
        (ANTHROPIC_BODY, "anthropic"),
        (RESPONSES_BODY, "openai-responses"),
        ({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}, "openai"),
        (
            {
                "model": "m",
                "max_tokens": 9,
                "system": "s",
                "messages": [{"role": "user", "content": "hi"}],
            },
            "anthropic",
        ),
        ({"model": "gpt-5", "input": "hi"}, "openai-responses"),
    ],
)
def test_the_format_is_detected_from_the_body(body: dict[str, Any], expected: str) -> None:
    assert detect_format(body) == expected
    assert parse_request(body).format == expected


@settings(max_examples=40, deadline=None)
@given(bodies())
def test_every_generated_body_is_detected_as_its_own_format(case: tuple[str, Any]) -> None:
    fmt, body = case
    assert detect_format(body) == fmt


def test_an_anthropic_body_without_a_format_keeps_its_system_prompt() -> None:
    """Issue 11: metered as OpenAI, its system prompt (19,629 tokens) was dropped."""
    body = {**ANTHROPIC_BODY, "system": "## Identity\n" + "rules " * 3000}
    report = meter_request(parse_request(body), CJKCounter()).snapshot(0)
    system = next(usage.tokens for usage in report.segments if usage.segment == "system")
    assert system > 3000


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"model": "m"}, "matches none"),
        ({"model": "m", "messages": [], "input": []}, "matches none"),
        (
            {"model": "m", "messages": [{"role": "developer", "content": "x"}], "system": "s"},
            "none",
        ),
        (
            {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
            "could be",
        ),
    ],
)
def test_a_body_of_no_format_or_of_two_is_a_format_error_that_says_so(
    body: dict[str, Any], needle: str
) -> None:
    with pytest.raises(FormatError, match=needle) as raised:
        parse_request(body)
    assert "format=" in str(raised.value), "the message says what to do"


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 600, 5_000])
@pytest.mark.parametrize("where", ["tool-input", "tools", "metadata"])
def test_deep_bodies_are_format_errors_never_recursion_errors(depth: int, where: str) -> None:
    body: dict[str, Any] = copy.deepcopy(ANTHROPIC_BODY)
    if where == "tool-input":
        body["messages"][1]["content"][1]["input"] = _nested(depth)
    elif where == "tools":
        body["tools"] = [{"name": "deep", "input_schema": _nested(depth)}]
    else:
        body["metadata"] = _nested(depth)
    with pytest.raises(FormatError, match=f"deeper than {MAX_NESTING}"):
        parse_request(body, "anthropic")
    with pytest.raises(FormatError, match="nests deeper"):
        enforce_budget(body, BudgetConfig(max_input_tokens=10), format="anthropic")


def test_nesting_up_to_the_limit_is_accepted() -> None:
    body: dict[str, Any] = copy.deepcopy(ANTHROPIC_BODY)
    # The body is level 1, messages 2, the message 3, content 4, the block 5, input 6.
    body["messages"][1]["content"][1]["input"] = _nested(MAX_NESTING - 6)
    request = parse_request(body, "anthropic")
    assert render_request(request) == body


FIELD_NAMES = ["role", "content", "tool_calls", "tool_call_id", "type", "call_id", "name",
               "arguments", "output", "summary", "input", "id", "text", "tool_use_id",
               "function"]  # fmt: skip
TYPE_NAMES = ["text", "image", "image_url", "tool_use", "tool_result", "thinking", "function",
              "function_call", "function_call_output", "reasoning", "input_text", "message",
              "custom", "document", "summary_text"]  # fmt: skip
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
json_values = st.recursive(
    scalars | st.sampled_from(TYPE_NAMES),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=14,
)
hostile_fields = st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=5)
hostile_messages = st.lists(
    hostile_fields
    | st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "tool"])}, optional={"content": json_values}
    )
    | json_values,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(
    messages=hostile_messages,
    top=st.dictionaries(
        st.sampled_from(["system", "tools", "max_tokens", "instructions"]), json_values
    ),
    key=st.sampled_from(["messages", "input"]),
    fmt=st.sampled_from([None, "openai", "anthropic", "openai-responses"]),
)
def test_every_hostile_body_is_a_ctxbudget_error(
    messages: list[Any], top: dict[str, Any], key: str, fmt: str | None
) -> None:
    """Unhashable roles, numbers as content, lists as tool calls …: never a TypeError."""
    body = {"model": "m", **top, key: messages}
    try:
        request = parse_request(body, fmt)
        render_request(request)
        enforce_budget(body, BudgetConfig(max_input_tokens=1), format=fmt, counter=CJKCounter())
    except CtxBudgetError:
        pass


@pytest.mark.parametrize("role", [["user"], {"r": 1}, 3, None])
def test_an_unhashable_or_odd_role_is_a_format_error(role: Any) -> None:
    """Issue 11: an unhashable role raised TypeError."""
    for fmt in ("openai", "anthropic", "openai-responses"):
        key = "input" if fmt == "openai-responses" else "messages"
        with pytest.raises(FormatError, match="role"):
            parse_request(
                {"model": "m", "max_tokens": 1, key: [{"role": role, "content": "x"}]}, fmt
            )


def test_a_caller_window_gives_a_cap_with_or_without_max_tokens() -> None:
    """Issue 11: ``--window 128000`` was ignored when the body had no ``max_tokens``."""
    without = parse_request({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})
    with_limit = parse_request({**OPENAI_BODY, "max_completion_tokens": 4_000}, "openai")
    assert input_cap(without, 128_000) == 128_000
    assert input_cap(without, 128_000, default_output=16_384) == 128_000 - 16_384
    assert input_cap(with_limit, 128_000) == 124_000
    assert input_cap(parse_request(ANTHROPIC_BODY), 200_000) == 200_000 - 100
    assert input_cap(parse_request(RESPONSES_BODY), 400_000) == 400_000 - 2_048
    assert input_cap(without, 0) == 0, "no window: no cap"


def test_enforcement_honours_the_window_when_the_body_reserves_no_output() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a" * 9000},
            {"role": "user", "content": "next"},
        ],
    }
    roomy = BudgetConfig(max_input_tokens=100_000)
    result = enforce_budget(body, roomy, counter=CJKCounter(), window=1_000)
    assert result.info.stages == ("turn_trim",)
    assert result.estimate_after <= 1_000
    assert enforce_budget(body, roomy, counter=CJKCounter()).body is body
