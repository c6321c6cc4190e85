"""The OpenAI Responses format: instructions, input items, calls and outputs, reasoning."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ctxbudget.content import (
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)
from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import FormatError
from ctxbudget.formats import (
    add_system_section,
    meter_request,
    openai_responses,
    parse_request,
    render_request,
)
from ctxbudget.tokens import CJKCounter
from tests.formats.sdk import validate

BODY: dict[str, Any] = {
    "model": "gpt-5",
    "instructions": "## Identity\nYou are the coding agent.",
    "input": [
        {"role": "developer", "content": "Answer in English."},
        {"role": "user", "content": "read a.txt"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "I should read it"}],
            "encrypted_content": "gAAAA-opaque",
        },
        {"type": "function_call", "call_id": "fc_1", "name": "read", "arguments": '{"p":"a"}'},
        {"type": "function_call_output", "call_id": "fc_1", "output": "x" * 3000},
        {"type": "item_reference", "id": "msg_0"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": [{"type": "input_text", "text": "and now?"}]},
    ],
    "tools": [
        {"type": "function", "name": "read", "parameters": {"type": "object"}, "strict": False}
    ],
    "max_output_tokens": 2048,
    "store": False,
}


def test_unchanged_request_renders_back_equal_and_valid() -> None:
    before = copy.deepcopy(BODY)
    rendered = render_request(parse_request(BODY, "openai-responses"))
    assert rendered == BODY
    assert before == BODY
    validate(rendered, "openai-responses")
    rendered["input"][1]["content"] = "changed"
    assert before == BODY, "the rendered body shares no containers with the input"


def test_items_land_in_the_request_segments() -> None:
    request = openai_responses.parse_request(BODY)
    assert request.format == "openai-responses"
    assert [t.message.role for t in request.system] == ["system", "developer"]
    assert request.system[0].message.content == (TextBlock(BODY["instructions"]),)
    messages = [t.message for t in request.conversation]
    assert messages[1].content == (ReasoningBlock("I should read it", "gAAAA-opaque"),)
    assert messages[2].content == (ToolCallBlock("fc_1", "read", '{"p":"a"}'),)
    assert messages[3].content == (ToolResultBlock("fc_1", (TextBlock("x" * 3000),)),)
    assert isinstance(messages[4].content[0], UnknownBlock), "other items are kept as they came"
    assert [t.message.role for t in request.pending] == ["user"]
    assert len(request.tools) == 1


def test_metering_counts_the_instructions_and_tools() -> None:
    report = meter_request(parse_request(BODY), CJKCounter()).snapshot(0)
    by_segment = {usage.segment: usage.tokens for usage in report.segments}
    assert by_segment["system"] > 0
    assert by_segment["tools"] > 0
    assert by_segment["conversation"] > 800


def test_a_string_input_is_one_user_turn_and_stays_a_string() -> None:
    body = {"model": "gpt-5", "input": "hello", "instructions": "be brief"}
    request = parse_request(body)
    assert [t.message.role for t in request.pending] == ["user"]
    assert render_request(request) == body
    validate(render_request(request), "openai-responses")


def test_a_summary_section_is_a_developer_message_after_the_system_prompt() -> None:
    rendered = render_request(add_system_section(parse_request(BODY), "## Summary\n- a"))
    assert rendered["instructions"] == BODY["instructions"], "never-trim text stays as it was"
    assert rendered["input"][1] == {"role": "developer", "content": "## Summary\n- a"}
    assert rendered["input"][0] == BODY["input"][0]
    assert rendered["input"][2:] == BODY["input"][1:]
    validate(rendered, "openai-responses")
    request = parse_request(rendered)
    assert [t.message.role for t in request.system] == ["system", "developer", "developer"]


def test_outputs_may_answer_server_side_calls_when_a_stored_response_continues() -> None:
    body = {
        "model": "gpt-5",
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "fc_9", "output": "42"}],
    }
    request = parse_request(body)
    assert request.pending[0].message.content == (ToolResultBlock("fc_9", (TextBlock("42"),)),)
    with pytest.raises(FormatError, match="answer no"):
        parse_request({k: v for k, v in body.items() if k != "previous_response_id"})


@pytest.mark.parametrize(
    ("items", "needle"),
    [
        ([], "'input'"),
        ([{"type": "function_call", "name": "f", "arguments": "{}"}], "'call_id'"),
        ([{"role": "robot", "content": "x"}], "role 'robot'"),
        ([{"role": "user", "content": 7}], "neither text nor a list"),
        ([{"type": ["message"], "role": "user", "content": "x"}], "string 'type'"),
        ([{"type": "reasoning", "id": "r", "summary": "no"}], "'summary'"),
    ],
)
def test_bad_items_raise_format_errors_that_say_what_to_do(items: Any, needle: str) -> None:
    with pytest.raises(FormatError, match=needle) as raised:
        parse_request({"model": "gpt-5", "input": items}, "openai-responses")
    assert ";" in str(raised.value)


def test_enforcement_trims_and_stubs_a_responses_body_unchanged_in_shape() -> None:
    items: list[dict[str, Any]] = [{"role": "user", "content": "the task: " + "t" * 300}]
    for n in range(8):
        items += [
            {"type": "function_call", "call_id": f"fc_{n}", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"fc_{n}", "output": f"{n}" + "o" * 4000},
            {"role": "assistant", "content": f"read {n}"},
        ]
    items.append({"role": "user", "content": "next?"})
    body = {"model": "gpt-5", "instructions": "## Identity\nagent", "input": items}
    counter = CJKCounter()
    full = enforce_budget(body, BudgetConfig(), counter=counter).estimate_before
    result = enforce_budget(body, BudgetConfig(max_input_tokens=full // 4), counter=counter)
    assert result.format == "openai-responses"
    assert result.info.compressed
    assert result.estimate_after <= full // 4
    validate(result.body, "openai-responses")
    assert result.body["input"][0] == items[0], "the task is intact"
    assert result.body["instructions"] == body["instructions"]
