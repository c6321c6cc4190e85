"""Every block kind a stage may edit renders in every format: parsing the rendered body
gives the edit back (the Anthropic renderer used to re-emit a tool call's original input)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.content import (
    Block,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ctxbudget.formats import parse_request, render_request
from ctxbudget.formats.request import Request, Turn
from ctxbudget.tokens import json_text
from tests.formats.sdk import validate
from tests.formats.strategies import bodies, short_text
from tests.formats.test_formats import ANTHROPIC_BODY

EDITABLE = (TextBlock, ToolCallBlock, ToolResultBlock, ReasoningBlock)


def edited(block: Block, text: str) -> Block:
    """``block`` with its content replaced by ``text`` (tool-call arguments as a JSON object)."""
    if isinstance(block, TextBlock):
        return TextBlock(text)
    if isinstance(block, ToolCallBlock):
        return ToolCallBlock(block.id, block.name, json_text({"edited": text}))
    if isinstance(block, ToolResultBlock):
        return ToolResultBlock(block.tool_call_id, (TextBlock(text),), block.is_error)
    assert isinstance(block, ReasoningBlock)
    return ReasoningBlock(text, block.signature)


def with_turn(request: Request, index: int, turn: Turn) -> Request:
    turns = list(request.turns)
    turns[index] = turn
    cut = len(request.conversation)
    return Request(
        request.format,
        request.system,
        request.tools,
        tuple(turns[:cut]),
        tuple(turns[cut:]),
        request.body,
    )


def check_edit_round_trips(fmt: str, body: dict[str, Any], choice: int, text: str) -> None:
    request = parse_request(body, fmt)
    spots = [
        (t, b)
        for t, turn in enumerate(request.turns)
        for b, block in enumerate(turn.message.content)
        if isinstance(block, EDITABLE)
    ]
    t, b = spots[choice % len(spots)]
    turn = request.turns[t]
    blocks = list(turn.message.content)
    blocks[b] = edited(blocks[b], text)
    message = Message(turn.message.role, tuple(blocks))
    before = copy.deepcopy(body)
    rendered = render_request(with_turn(request, t, turn.edited(message)))
    assert body == before, "rendering an edit never changes the caller's body"
    validate(rendered, fmt)
    again = parse_request(rendered, fmt)
    assert again.turns[t].message == message, f"{type(blocks[b]).__name__} edit lost in {fmt}"


@settings(max_examples=60, deadline=None)
@given(bodies(), st.integers(0, 1_000), short_text)
def test_an_edit_to_any_block_renders_in_every_format(
    case: tuple[str, dict[str, Any]], choice: int, text: str
) -> None:
    fmt, body = case
    check_edit_round_trips(fmt, body, choice, text)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 1_000), short_text)
def test_an_edit_to_anthropic_thinking_and_tool_use_renders(choice: int, text: str) -> None:
    """The generated bodies have no thinking blocks; this one does."""
    check_edit_round_trips("anthropic", ANTHROPIC_BODY, choice, text)


def test_an_edited_anthropic_tool_call_sends_its_new_arguments() -> None:
    """Issue 11: the renderer re-emitted the original ``input``."""
    request = parse_request(ANTHROPIC_BODY, "anthropic")
    turn = request.conversation[1]
    call = turn.message.content[1]
    assert isinstance(call, ToolCallBlock)
    new = ToolCallBlock(call.id, call.name, '{"path":"b.txt"}')
    message = Message("assistant", (turn.message.content[0], new))
    rendered = render_request(with_turn(request, 1, turn.edited(message)))
    assert rendered["messages"][1]["content"][1]["input"] == {"path": "b.txt"}
