"""Parsed turns are reused across requests only while their message is unchanged,
from a cache the caller owns, bounded by bytes."""

from __future__ import annotations

from typing import Any

import pytest

from ctxbudget.content import TextBlock
from ctxbudget.errors import FormatError
from ctxbudget.formats import RequestCache, parse_request
from ctxbudget.formats._memo import remember_turn, remembered_turn


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


def _turn() -> Any:
    return parse_request({"messages": [{"role": "user", "content": "v"}]}, "openai").pending[0]


def test_same_values_under_other_keys_do_not_match() -> None:
    cache = RequestCache()
    raw: dict[str, Any] = {"a": "v"}
    turn = _turn()
    remember_turn(cache, "openai", raw, turn, 1)
    assert remembered_turn(cache, "openai", raw) is turn
    del raw["a"]
    raw["b"] = "v"
    assert remembered_turn(cache, "openai", raw) is None


def test_edits_deep_inside_a_message_are_seen() -> None:
    cache = RequestCache()
    turn = _turn()
    nested: dict[str, Any] = {"nested": [{"deeper": {"x": "1"}}]}
    remember_turn(cache, "openai", nested, turn, 1)
    assert remembered_turn(cache, "openai", nested) is turn
    nested["nested"][0]["deeper"]["x"] = "2"
    assert remembered_turn(cache, "openai", nested) is None
    remember_turn(cache, "openai", nested, turn, 1)
    nested["nested"][0]["deeper"]["y"] = "3"
    assert remembered_turn(cache, "openai", nested) is None


def test_only_plain_json_is_remembered() -> None:
    cache = RequestCache()
    odd = {"content": ("a", "tuple")}
    remember_turn(cache, "openai", odd, _turn(), 1)
    assert remembered_turn(cache, "openai", odd) is None
    assert len(cache) == 0


def test_the_cache_is_bounded_by_bytes_oldest_first() -> None:
    cache = RequestCache(max_bytes=3_000)
    turn = _turn()
    raws = [{"k": str(i)} for i in range(3)]
    for raw in raws:
        remember_turn(cache, "openai", raw, turn, 300)  # 300 bytes + the entry overhead
    assert cache.bytes_used <= 3_000
    assert remembered_turn(cache, "openai", raws[2]) is turn
    assert remembered_turn(cache, "openai", raws[0]) is None


def test_an_entry_larger_than_the_cache_is_not_kept() -> None:
    cache = RequestCache(max_bytes=2_000)
    remember_turn(cache, "openai", {"k": "v"}, _turn(), 5_000)
    assert len(cache) == 0
    assert cache.bytes_used == 0


def test_parsing_with_a_cache_of_your_own_fills_only_that_cache() -> None:
    mine = RequestCache()
    message = {"role": "user", "content": "hello"}
    first = parse_request({"messages": [message]}, "openai", cache=mine).pending[0]
    assert len(mine) == 2  # the message by identity and by content
    assert parse_request({"messages": [message]}, "openai", cache=mine).pending[0] is first
    mine.clear()
    assert len(mine) == 0
    assert mine.bytes_used == 0
    assert parse_request({"messages": [message]}, "openai", cache=mine).pending[0] is not first


@pytest.mark.parametrize("size", [-1, 1.5, True, "10"])
def test_a_cache_size_that_is_not_a_byte_count_is_refused(size: Any) -> None:
    from ctxbudget.errors import ConfigError

    with pytest.raises(ConfigError, match="max_bytes"):
        RequestCache(max_bytes=size)


def test_each_format_remembers_its_own_parse() -> None:
    message = {"role": "system", "content": "rules"}
    parse_request({"model": "m", "messages": [message, {"role": "user", "content": "u"}]}, "openai")
    with pytest.raises(FormatError, match="top-level"):
        parse_request(body("anthropic", [message]), "anthropic")
