"""Parsing and rendering OpenAI and Anthropic bodies: round trips, edits, errors."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings

from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock, UnknownBlock
from ctxbudget.errors import FormatError
from ctxbudget.formats import add_system_section, anthropic, openai, parse_request, render_request
from ctxbudget.formats.request import Request, Turn
from tests.formats.sdk import validate
from tests.formats.strategies import bodies

OPENAI_BODY: dict[str, Any] = {
    "model": "gpt-4o",
    "temperature": 0,
    "messages": [
        {"role": "developer", "content": "## Identity\nYou are terse."},
        {"role": "user", "content": "read a.txt", "name": "ana"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x" * 2000},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and now?"},
                {"type": "image_url", "image_url": {"url": "https://e.x/a.png"}},
            ],
        },
    ],
    "tools": [{"type": "function", "function": {"name": "read", "parameters": {}}}],
}

ANTHROPIC_BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "system": [
        {
            "type": "text",
            "text": "## Identity\nYou are terse.",
            "cache_control": {"type": "ephemeral"},
        }
    ],
    "messages": [
        {"role": "user", "content": "read a.txt"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "let me read", "signature": "sig"},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.txt"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": "y" * 2000,
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": [{"type": "text", "text": "and now?"}]},
    ],
    "tools": [{"name": "read", "input_schema": {"type": "object"}}],
}


@pytest.mark.parametrize(("fmt", "body"), [("openai", OPENAI_BODY), ("anthropic", ANTHROPIC_BODY)])
def test_unchanged_request_renders_back_equal_and_valid(fmt: str, body: dict[str, Any]) -> None:
    before = copy.deepcopy(body)
    request = parse_request(body, fmt)
    rendered = render_request(request)
    assert rendered == body
    assert body == before
    validate(rendered, fmt)
    rendered["messages"][0]["content"] = "changed"
    assert body == before, "the rendered body shares no containers with the input"


def test_openai_segments() -> None:
    request = openai.parse_request(OPENAI_BODY)
    assert [t.message.role for t in request.system] == ["developer"]
    assert [t.message.role for t in request.conversation] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert [t.message.role for t in request.pending] == ["user"]
    assert request.conversation[1].message.content == (ToolCallBlock("c1", "read", "{}"),)
    assert request.conversation[2].message.content == (
        ToolResultBlock("c1", (TextBlock("x" * 2000),)),
    )
    assert len(request.tools) == 1


def test_anthropic_segments() -> None:
    request = anthropic.parse_request(ANTHROPIC_BODY)
    assert request.system[0].message.content == (TextBlock("## Identity\nYou are terse."),)
    assert [t.message.role for t in request.conversation] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert [t.message.role for t in request.pending] == ["user"]
    call = request.conversation[1].message.content[1]
    assert call == ToolCallBlock("t1", "read", '{"path":"a.txt"}')


def test_pending_is_the_tool_results_of_the_last_call() -> None:
    body = copy.deepcopy(OPENAI_BODY)
    body["messages"] = body["messages"][:4]
    request = openai.parse_request(body)
    assert [t.message.role for t in request.pending] == ["tool"]
    assert [t.message.role for t in request.conversation] == ["user", "assistant"]


def _edit_last_text(turn: Turn, text: str) -> Turn:
    blocks = list(turn.message.content)
    index = max(i for i, b in enumerate(blocks) if isinstance(b, TextBlock | ToolResultBlock))
    if isinstance(blocks[index], ToolResultBlock):
        result = blocks[index]
        assert isinstance(result, ToolResultBlock)
        blocks[index] = ToolResultBlock(result.tool_call_id, (TextBlock(text),), result.is_error)
    else:
        blocks[index] = TextBlock(text)
    return turn.edited(Message(turn.message.role, tuple(blocks)))


def _with_conversation(request: Request, conversation: tuple[Turn, ...]) -> Request:
    return Request(
        request.format, request.system, request.tools, conversation, request.pending, request.body
    )


@pytest.mark.parametrize(
    ("fmt", "body", "index"), [("openai", OPENAI_BODY, 2), ("anthropic", ANTHROPIC_BODY, 2)]
)
def test_edited_tool_result_keeps_its_pair_and_fields(
    fmt: str, body: dict[str, Any], index: int
) -> None:
    request = parse_request(body, fmt)
    turns = list(request.conversation)
    turns[index] = _edit_last_text(turns[index], "[stub]")
    rendered = render_request(_with_conversation(request, tuple(turns)))
    validate(rendered, fmt)
    edited = rendered["messages"][index + (1 if fmt == "openai" else 0)]
    if fmt == "openai":
        assert edited == {"role": "tool", "tool_call_id": "c1", "content": "[stub]"}
    else:
        assert edited["content"] == [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": "[stub]",
                "cache_control": {"type": "ephemeral"},
            }
        ]
    assert parse_request(rendered, fmt).conversation[index].message == turns[index].message


def test_edited_openai_text_keeps_message_fields() -> None:
    request = openai.parse_request(OPENAI_BODY)
    turns = list(request.conversation)
    turns[0] = _edit_last_text(turns[0], "short")
    rendered = openai.render_request(_with_conversation(request, tuple(turns)))
    assert rendered["messages"][1] == {"role": "user", "content": "short", "name": "ana"}


@pytest.mark.parametrize(("fmt", "body"), [("openai", OPENAI_BODY), ("anthropic", ANTHROPIC_BODY)])
def test_system_section_is_added_on_its_own(fmt: str, body: dict[str, Any]) -> None:
    request = add_system_section(parse_request(body, fmt), "## Summary\n- a")
    rendered = render_request(request)
    validate(rendered, fmt)
    if fmt == "openai":
        assert rendered["messages"][0] == body["messages"][0]
        assert rendered["messages"][1] == {"role": "developer", "content": "## Summary\n- a"}
    else:
        assert rendered["system"] == [*body["system"], {"type": "text", "text": "## Summary\n- a"}]


def test_system_section_on_a_string_system_keeps_the_text_as_its_own_block() -> None:
    body = {**ANTHROPIC_BODY, "system": "## Identity\nterse"}
    rendered = render_request(add_system_section(anthropic.parse_request(body), "S"))
    assert rendered["system"] == [
        {"type": "text", "text": "## Identity\nterse"},
        {"type": "text", "text": "S"},
    ]
    no_system = {k: v for k, v in ANTHROPIC_BODY.items() if k != "system"}
    rendered = render_request(add_system_section(anthropic.parse_request(no_system), "S"))
    assert rendered["system"] == "S"


def test_unknown_blocks_and_keys_survive() -> None:
    body = copy.deepcopy(ANTHROPIC_BODY)
    body["metadata"] = {"user_id": "u"}
    body["messages"][0]["content"] = [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "d"}},
        {"type": "text", "text": "hi", "citations": None},
    ]
    request = anthropic.parse_request(body)
    assert isinstance(request.conversation[0].message.content[0], UnknownBlock)
    assert anthropic.render_request(request) == body


@pytest.mark.parametrize(
    ("fmt", "body", "needle"),
    [
        ("openai", [], "body"),
        ("openai", {"model": "m"}, "'messages'"),
        ("openai", {"messages": [{"role": "robot", "content": "x"}]}, "role 'robot'"),
        ("openai", {"messages": [{"role": "tool", "content": "x"}]}, "tool_call_id"),
        (
            "openai",
            {"messages": [{"role": "tool", "tool_call_id": "z", "content": "x"}]},
            "answer no",
        ),
        (
            "openai",
            {
                "messages": [
                    {"role": "user", "content": "x"},
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "a",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "user", "content": "y"},
                ]
            },
            "have no tool result",
        ),
        ("openai", {"messages": [{"role": "user", "content": [{"text": "x"}]}]}, "'type'"),
        ("anthropic", {"messages": [{"role": "system", "content": "x"}]}, "top-level"),
        ("anthropic", {"messages": [{"role": "user"}]}, "no 'content'"),
        (
            "anthropic",
            {
                "messages": [
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "q"}]}
                ]
            },
            "answer no",
        ),
        (
            "anthropic",
            {
                "messages": [
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "q", "name": "f"}]}
                ]
            },
            "'input'",
        ),
        (
            "anthropic",
            {"system": [{"type": "image"}], "messages": [{"role": "user", "content": "x"}]},
            "text",
        ),
        ("nope", {"messages": []}, "unknown request format"),
    ],
)
def test_bad_bodies_raise_format_error(fmt: str, body: Any, needle: str) -> None:
    with pytest.raises(FormatError, match=needle) as raised:
        parse_request(body, fmt)
    assert ";" in str(raised.value) or "use" in str(raised.value), "the message says what to do"


@settings(max_examples=60, deadline=None)
@given(bodies())
def test_random_bodies_round_trip_and_validate(case: tuple[str, dict[str, Any]]) -> None:
    fmt, body = case
    before = copy.deepcopy(body)
    rendered = render_request(parse_request(body, fmt))
    assert rendered == body == before
    validate(rendered, fmt)
