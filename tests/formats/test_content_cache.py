"""Parsed turns are reused by content across fresh objects (a proxy decodes every
body anew), and never for content that differs in any way."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.errors import FormatError
from ctxbudget.formats import Request, RequestCache, parse_request


def body(fmt: str, messages: list[Any]) -> dict[str, Any]:
    if fmt == "openai-responses":
        return {"model": "m", "input": messages}
    out: dict[str, Any] = {"model": "m", "messages": messages}
    if fmt == "anthropic":
        out["max_tokens"] = 5
    return out


def fresh(value: Any) -> Any:
    """The same values in new objects, as a JSON decoder hands them over."""
    return json.loads(json.dumps(value))


def uncached(fmt: str, messages: list[Any]) -> Request | str:
    """A parse with a cache that keeps nothing, or the error it gives."""
    try:
        return parse_request(body(fmt, messages), fmt, cache=RequestCache(max_bytes=0))
    except FormatError as error:
        return str(error)


def cached(fmt: str, messages: list[Any], cache: RequestCache) -> Request | str:
    try:
        return parse_request(body(fmt, messages), fmt, cache=cache)
    except FormatError as error:
        return str(error)


CHAT = [
    {"role": "user", "content": "fix the failing test"},
    {"role": "assistant", "content": [{"type": "text", "text": "looking at it"}]},
    {"role": "user", "content": "thanks"},
]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_the_same_content_in_new_objects_reuses_the_parsed_turns(fmt: str) -> None:
    cache = RequestCache()
    first = parse_request(body(fmt, fresh(CHAT)), fmt, cache=cache)
    again = parse_request(body(fmt, fresh(CHAT)), fmt, cache=cache)
    assert [t is u for t, u in zip(first.conversation, again.conversation, strict=True)] == [
        True,
        True,
    ]
    # The same Message objects, so their prices (remembered by message) are reused too.
    assert again.pending[0].message is first.pending[0].message


@pytest.mark.parametrize(
    "edit",
    [
        lambda m: m[0].update(content="fix the failing tests"),
        lambda m: m[1]["content"][0].update(text="looking at it."),
        lambda m: m[1]["content"][0].update(cache_control={"type": "ephemeral"}),
        lambda m: m[0].update(name="alice"),
        lambda m: m[0].update(role="system"),
    ],
)
def test_any_edit_is_parsed_afresh(edit: Any) -> None:
    cache = RequestCache()
    parse_request(body("openai", fresh(CHAT)), "openai", cache=cache)
    edited = fresh(CHAT)
    edit(edited)
    assert cached("openai", edited, cache) == uncached("openai", fresh(edited))
    assert cached("openai", edited, cache) != uncached("openai", fresh(CHAT))


def test_an_entry_shares_nothing_with_the_caller_objects() -> None:
    """Editing the objects a turn was first parsed from cannot change what a later
    request with the original content gets."""
    cache = RequestCache()
    first = fresh(CHAT)
    parse_request(body("openai", first), "openai", cache=cache)
    first[1]["content"][0]["text"] = "edited after the call"
    first[0]["content"] = "edited too"
    assert cached("openai", fresh(CHAT), cache) == uncached("openai", fresh(CHAT))


def test_values_json_cannot_tell_apart_are_not_confused() -> None:
    """A tuple is not a list and an integer key is not a string key, although both
    encode to the same JSON text."""
    cache = RequestCache()
    listed = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    parse_request(body("openai", listed), "openai", cache=cache)
    tupled: list[Any] = [{"role": "user", "content": ({"type": "text", "text": "hi"},)}]
    assert cached("openai", tupled, cache) == uncached("openai", tupled)
    keyed = [{"role": "user", "content": "hi", 1: "x"}]
    stringed = [{"role": "user", "content": "hi", "1": "x"}]
    parse_request(body("openai", stringed), "openai", cache=cache)
    assert cached("openai", keyed, cache) == uncached("openai", keyed)


def test_content_entries_count_against_the_byte_bound() -> None:
    cache = RequestCache(max_bytes=20_000)
    for i in range(100):
        parse_request(body("openai", [{"role": "user", "content": f"{i} " * 500}]), cache=cache)
    assert cache.bytes_used <= 20_000


_TEXT = st.text(max_size=12)
_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), _TEXT)
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image_url", "tool_use", "tool_result", "thinking"])},
    optional={"text": _TEXT, "id": st.sampled_from(["a", "b"]), "input": _JSON, "x": _JSON},
)
_MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", "developer"])},
    optional={
        "content": st.one_of(_TEXT, st.lists(_BLOCK, max_size=3), _JSON),
        "name": _TEXT,
        "tool_call_id": st.sampled_from(["a", "b"]),
        "extra": _JSON,
    },
)


@settings(max_examples=150, deadline=None)
@given(
    fmt=st.sampled_from(["openai", "anthropic", "openai-responses"]),
    warm=st.lists(_MESSAGE, max_size=4),
    messages=st.lists(_MESSAGE, min_size=1, max_size=4),
)
def test_a_cached_parse_equals_a_fresh_parse(
    fmt: str, warm: list[Any], messages: list[Any]
) -> None:
    """Whatever the cache saw before (the same messages, others, or errors), parsing
    new objects with its help gives what parsing them without it gives."""
    cache = RequestCache()
    cached(fmt, fresh(warm + messages), cache)
    cached(fmt, copy.deepcopy(messages), cache)
    assert cached(fmt, fresh(messages), cache) == uncached(fmt, fresh(messages))
