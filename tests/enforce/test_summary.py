"""The summary stage's cut and section."""

from __future__ import annotations

from typing import Any

from ctxbudget.content.pairing import is_safe_cut
from ctxbudget.enforce import SUMMARY_HEADER
from ctxbudget.enforce.summary import summary_cut, summary_section
from ctxbudget.formats import anthropic, openai


def body(messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 9, "messages": messages}


def tool_round(n: int) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": f"q{n}"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"t{n}", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "r"}],
        },
        {"role": "assistant", "content": f"a{n}"},
    ]


def test_the_cut_keeps_pairs_and_starts_on_a_user_message() -> None:
    messages = [m for n in range(4) for m in tool_round(n)] + [{"role": "user", "content": "p"}]
    request = anthropic.parse_request(body(messages))
    for keep in range(6):
        cut = summary_cut(request, keep)
        assert cut is not None
        kept = request.messages()[cut]
        assert kept.role == "user"
        assert not kept.tool_result_ids()
        assert is_safe_cut(request.messages(), cut)
        assert len(request.conversation) - cut >= keep
    assert summary_cut(request, 3) == 12


def test_no_cut_when_too_little_history() -> None:
    request = anthropic.parse_request(body([*tool_round(0), {"role": "user", "content": "p"}]))
    assert summary_cut(request, 3) is None


def test_summary_section_shape() -> None:
    assert summary_section(4, "- a", None) == f"{SUMMARY_HEADER}\n[summary of earlier 4 turns]\n- a"
    assert summary_section(4, "- a", "h").endswith("\n[originals archived; retrieve with handle h]")


def test_mid_conversation_instructions_are_never_summarized() -> None:
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
        {"role": "developer", "content": "from now on, answer in French"},
        {"role": "user", "content": "d"},
        {"role": "assistant", "content": "e"},
        {"role": "user", "content": "f"},
        {"role": "assistant", "content": "g"},
        {"role": "user", "content": "p"},
    ]
    request = openai.parse_request({"model": "m", "messages": messages})
    assert summary_cut(request, 0) == 2
