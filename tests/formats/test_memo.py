"""Parsed turns are reused across requests only while their message is unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from ctxbudget.content import TextBlock
from ctxbudget.errors import FormatError
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
def test_content_parts_changed_in_place_are_seen(fmt: str) -> None:
    parts: list[dict[str, Any]] = [{"type": "text", "text": "hello"}]
    message = {"role": "user", "content": parts}
    first = parse_request(body(fmt, [message]), fmt).pending[0]
    assert parse_request(body(fmt, [message]), fmt).pending[0] is first, "remembered"
    parts[0]["text"] = "changed in place"
    turn = parse_request(body(fmt, [message]), fmt).pending[0]
    assert turn.message.content == (TextBlock("changed in place"),)
    parts.append({"type": "text", "text": "more"})
    turn = parse_request(body(fmt, [message]), fmt).pending[0]
    assert turn.message.content == (TextBlock("changed in place"), TextBlock("more"))
    parts[1] = {"type": "text", "text": "other"}
    turn = parse_request(body(fmt, [message]), fmt).pending[0]
    assert turn.message.content[1] == TextBlock("other")


def test_deeper_nesting_is_never_remembered() -> None:
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {"q": "a"}}
    message = {"role": "assistant", "content": [block]}
    messages = [{"role": "user", "content": "go"}, message]
    results = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]
    first = parse_request(body("anthropic", messages + results), "anthropic")
    block["input"]["q"] = "changed deep inside"  # type: ignore[index]
    again = parse_request(body("anthropic", messages + results), "anthropic")
    assert again.conversation[1] is not first.conversation[1]
    assert again.conversation[1].message.content[0].arguments == '{"q":"changed deep inside"}'  # type: ignore[union-attr]


def test_same_values_under_other_keys_do_not_match() -> None:
    memo = FlatTurnMemo()
    raw: dict[str, Any] = {"a": "v"}
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    memo.put(raw, turn)
    assert memo.get(raw) is turn
    del raw["a"]
    raw["b"] = "v"
    assert memo.get(raw) is None


def test_edits_deep_inside_a_message_are_seen() -> None:
    memo = FlatTurnMemo()
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    nested: dict[str, Any] = {"nested": [{"deeper": {"x": "1"}}]}
    memo.put(nested, turn)
    assert memo.get(nested) is turn
    nested["nested"][0]["deeper"]["x"] = "2"
    assert memo.get(nested) is None
    memo.put(nested, turn)
    nested["nested"][0]["deeper"]["y"] = "3"
    assert memo.get(nested) is None


def test_only_plain_json_is_remembered() -> None:
    memo = FlatTurnMemo()
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    odd = {"content": ("a", "tuple")}
    memo.put(odd, turn)
    assert memo.get(odd) is None


def test_the_memo_is_bounded() -> None:
    memo = FlatTurnMemo(limit=2)
    turn = parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]
    raws = [{"k": str(i)} for i in range(3)]
    for raw in raws:
        memo.put(raw, turn)
    assert memo.get(raws[2]) is turn
    assert memo.get(raws[0]) is None


def test_each_format_remembers_its_own_parse() -> None:
    message = {"role": "system", "content": "rules"}
    parse_request({"model": "m", "messages": [message, {"role": "user", "content": "u"}]}, "openai")
    with pytest.raises(FormatError, match="top-level"):
        parse_request(body("anthropic", [message]), "anthropic")
