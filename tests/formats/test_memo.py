"""Parsed turns are reused across requests only while their message is unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from ctxbudget.content import TextBlock
from ctxbudget.formats import parse_request
from ctxbudget.formats.memo import FlatTurnMemo


def body(fmt: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return (
        {"model": "m", "max_tokens": 5, "messages": messages}
        if fmt == "anthropic"
        else {
            "model": "m",
            "messages": messages,
        }
    )


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_an_unchanged_flat_message_reuses_its_turn(fmt: str) -> None:
    message = {"role": "user", "content": "hello"}
    first = parse_request(body(fmt, [message]), fmt).pending[0]
    again = parse_request(body(fmt, [message]), fmt).pending[0]
    assert again is first


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_a_message_changed_in_place_is_parsed_again(fmt: str) -> None:
    message: dict[str, Any] = {"role": "user", "content": "hello"}
    parse_request(body(fmt, [message]), fmt)
    message["content"] = "changed"
    turn = parse_request(body(fmt, [message]), fmt).pending[0]
    assert turn.message.content == (TextBlock("changed"),)


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_messages_with_nested_content_are_never_remembered(fmt: str) -> None:
    parts = [{"type": "text", "text": "hello"}]
    message = {"role": "user", "content": parts}
    parse_request(body(fmt, [message]), fmt)
    parts[0]["text"] = "changed in place"
    turn = parse_request(body(fmt, [message]), fmt).pending[0]
    assert turn.message.content == (TextBlock("changed in place"),)


def test_same_values_under_other_keys_do_not_match() -> None:
    memo = FlatTurnMemo()
    raw: dict[str, Any] = {"a": "v"}
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    memo.put(raw, turn)
    assert memo.get(raw) is turn
    del raw["a"]
    raw["b"] = "v"
    assert memo.get(raw) is None
    memo.put({"nested": []}, turn)
    assert memo.get({"nested": []}) is None


def test_the_memo_is_bounded() -> None:
    memo = FlatTurnMemo(limit=2)
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    raws = [{"k": str(i)} for i in range(3)]
    for raw in raws:
        memo.put(raw, turn)
    assert memo.get(raws[2]) is turn
    assert memo.get(raws[0]) is None
