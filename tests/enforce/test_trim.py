"""turn_trim: head and tail around a marker, by code point, never longer."""

from __future__ import annotations

import pytest

from ctxbudget.content import Message, ReasoningBlock, TextBlock, ToolCallBlock
from ctxbudget.enforce import TrimRule, TurnTrim, trim_text
from ctxbudget.formats import Request, Turn
from tests.enforce.stages import stage_context

DEFAULT = TrimRule(800, 300, 200)
PRESSURE = TrimRule(200, 75, 50)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Hello world", "Hello world", id="short-passthrough"),
        pytest.param("a" * 800, "a" * 800, id="at-threshold"),
        pytest.param(
            "x" * 900, "x" * 300 + "…\n[trimmed 400 chars]\n…" + "x" * 200, id="over-threshold"
        ),
        pytest.param("x" * 801, "x" * 300 + "…\n[trimmed 301 chars]\n…" + "x" * 200, id="801"),
        pytest.param(
            "你好世界" * 225,
            "你好世界" * 75 + "…\n[trimmed 400 chars]\n…" + "你好世界" * 50,
            id="cjk-safe",
        ),
        pytest.param(
            "😀" * 900, "😀" * 300 + "…\n[trimmed 400 chars]\n…" + "😀" * 200, id="astral-safe"
        ),
    ],
)
def test_reference_vectors(text: str, expected: str) -> None:
    assert trim_text(text, DEFAULT) == expected


def test_trimmed_vector_is_523_chars() -> None:
    assert len(trim_text("x" * 900, DEFAULT)) == 523


@pytest.mark.parametrize("length", [201, 250, 520, 521, 522, 523, 524, 2000])
def test_a_trim_never_makes_a_text_longer(length: int) -> None:
    rule = TrimRule(200, 300, 200)  # head + tail above the threshold
    text = "y" * length
    out = trim_text(text, rule)
    assert len(out) <= length
    assert out == text or "[trimmed" in out


def test_trimming_a_trimmed_text_changes_nothing() -> None:
    once = trim_text("z" * 5000, DEFAULT)
    assert trim_text(once, DEFAULT) == once
    pressed = trim_text("z" * 5000, PRESSURE)
    assert pressed == "z" * 75 + "…\n[trimmed 4875 chars]\n…" + "z" * 50
    assert trim_text(pressed, PRESSURE) == pressed


def _request(*turns: Message, pending: Message) -> Request:
    conversation = tuple(Turn.parsed_from(m, {}, [None] * len(m.content)) for m in turns)
    pending_turn = Turn.parsed_from(pending, {}, [None])
    return Request("openai", (), (), conversation, (pending_turn,), {})


def test_turn_trim_spares_pending_system_reasoning_and_tool_arguments() -> None:
    long = "q" * 1000
    request = _request(
        Message("system", (TextBlock(long),)),
        Message(
            "assistant",
            (ReasoningBlock(long, "sig"), TextBlock(long), ToolCallBlock("c", "f", long)),
        ),
        pending=Message("user", (TextBlock(long),)),
    )
    out = TurnTrim().trim(request, stage_context(0))
    assert out is not None
    system, assistant = (t.message for t in out.conversation)
    assert system.content == (TextBlock(long),)
    assert assistant.content[0] == ReasoningBlock(long, "sig")
    assert assistant.content[1] == TextBlock(trim_text(long, DEFAULT))
    assert assistant.content[2] == ToolCallBlock("c", "f", long)
    assert out.pending == request.pending


def test_turn_trim_returns_none_when_nothing_is_long() -> None:
    request = _request(Message("user", (TextBlock("short"),)), pending=Message("user", ()))
    assert TurnTrim().trim(request, stage_context(0)) is None
