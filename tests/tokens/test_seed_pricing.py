"""Seed 002's pricing vectors (chars4 counter, 4/4/4 overheads) and seed 003's CJK rule."""

from __future__ import annotations

import pytest

from ctxbudget.content import (
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
    message_from_json,
)
from ctxbudget.tokens import (
    SEED_OVERHEADS,
    Chars4Counter,
    CJKCounter,
    json_text,
    price_block,
    price_message,
    price_tools,
)

CHARS4 = Chars4Counter()


def user(*blocks: object) -> Message:
    return Message("user", tuple(blocks))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content", "tokens"),
    [
        ((), 4),
        ((TextBlock(""),), 8),
        ((TextBlock("abcd"),), 9),
        ((TextBlock("abcde"),), 10),
        ((TextBlock("你好世界"),), 9),
        ((TextBlock("😀"),), 9),
        ((TextBlock("x" * 326),), 90),
    ],
)
def test_message_vectors(content: tuple[TextBlock, ...], tokens: int) -> None:
    assert price_message(Message("assistant", content), CHARS4) == tokens


FIVE = (
    TextBlock("abcd"),
    ReasoningBlock("ab"),
    ToolCallBlock("c", "read", '{"x":1}'),
    ToolResultBlock("c", (TextBlock("xy"),), False),
    UnknownBlock({"type": "future-block", "payload": "abcd"}),
)


def test_block_vectors() -> None:
    assert [price_block(b, CHARS4) for b in FIVE] == [5, 5, 7, 9, 14]
    assert price_message(Message("assistant", FIVE), CHARS4) == 44


def test_tool_result_message_of_2700_chars() -> None:
    message = user(ToolResultBlock("call", (TextBlock("x" * 2700),)))
    assert price_message(message, CHARS4) == 687


def test_tools_priced_as_one_json_array() -> None:
    tools = [{"name": "read", "description": "read", "parameters": {"type": "object"}}]
    assert len(json_text(tools)) == 69
    assert price_tools(tools, CHARS4) == 22
    assert price_tools([], CHARS4) == 0


def test_json_text_matches_javascript() -> None:
    assert json_text({"b": 1.0, "a": [2.5, "é"]}) == '{"b":1,"a":[2.5,"é"]}'


def test_chars4_counts_utf16_units() -> None:
    assert CHARS4.count("") == 0
    assert CHARS4.count("abcd") == 1
    assert CHARS4.count("abcde") == 2
    assert CHARS4.count("😀") == 1  # two UTF-16 units
    assert CHARS4.count("😀😀😀") == 2  # six units
    assert CHARS4.count("\ud800") == 1  # a lone surrogate is one unit


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("hello", 2),  # 5 / 3.6 = 1.39
        ("你好世界", 6),  # 4 * 1.306 = 5.224
        ("你好, world", 5),  # 2 * 1.306 + 7 / 3.6 = 4.556
        ("\u3040", 2),  # first hiragana: CJK, 1.306
        ("\u303f", 1),  # CJK punctuation is "other": 1 / 3.6
        ("。", 1),  # U+3002 is other
        ("\u30ff", 2),
        ("\u3400\u4dbf", 3),  # Ext. A edges: 2.612
        ("\u4e00\u9fff", 3),
        ("\uac00\ud7af", 3),  # Hangul block, incl. its unassigned tail
        ("\ud7b0", 1),  # just past the Hangul range: other
        ("\uf900\ufaff", 3),
        ("\uff00\uffef", 3),  # half/full-width forms
        ("\ufff0", 1),
        ("\U00020000", 1),  # Ext. B is other: one code point
        ("😀", 1),
        ("a" * 36, 10),
    ],
)
def test_cjk_counter(text: str, tokens: int) -> None:
    assert CJKCounter().count(text) == tokens


def test_cjk_ceiling_is_once_per_string() -> None:
    counter = CJKCounter()
    assert counter.count("你" + "a") == 2  # 1.306 + 0.278 = 1.58 -> 2, not 2 + 1
    assert counter.count("你" * 10) == 14  # 13.06


def test_message_from_openai_like_json() -> None:
    message = message_from_json({"role": "user", "content": "abcd"})
    assert price_message(message, CHARS4, SEED_OVERHEADS) == 9
