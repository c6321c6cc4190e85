"""The summary stage's cut and section."""

from __future__ import annotations

from typing import Any

from ctxbudget.content.pairing import is_safe_cut
from ctxbudget.enforce import SUMMARY_HEADER
from ctxbudget.enforce.summary import summary_cuts, summary_section, task_kept
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


def test_the_cuts_keep_the_task_and_the_pairs() -> None:
    messages = [m for n in range(4) for m in tool_round(n)] + [{"role": "user", "content": "p"}]
    request = anthropic.parse_request(body(messages))
    assert task_kept(request) == 1, "the first user message stays verbatim"
    for keep in range(6):
        cuts = summary_cuts(request, keep)
        assert cuts
        assert list(cuts) == sorted(cuts), "smallest first: least lossy first"
        for cut in cuts:
            kept = request.messages()[cut]
            assert kept.role in ("user", "assistant")
            assert not kept.tool_result_ids()
            assert is_safe_cut(request.messages(), cut)
            assert len(request.conversation) - cut >= keep
            assert cut > 1
    assert max(summary_cuts(request, 3)) == 13, "up to the last three turns"


def test_no_cut_when_too_little_history() -> None:
    request = anthropic.parse_request(body([*tool_round(0), {"role": "user", "content": "p"}]))
    assert summary_cuts(request, 3) == ()


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
    assert max(summary_cuts(request, 0)) == 2


def test_a_tool_loop_without_user_messages_can_be_summarized_in_openai_formats() -> None:
    """Agent sessions are long tool loops: with the task kept, the span summarized may end
    before an assistant turn."""
    messages: list[dict[str, object]] = [{"role": "user", "content": "the task"}]
    for n in range(6):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": "out"},
        ]
    messages.append({"role": "user", "content": "next"})
    request = openai.parse_request({"model": "m", "messages": messages})
    cuts = summary_cuts(request, 3)
    assert cuts
    assert all(request.conversation[cut].message.role == "assistant" for cut in cuts)
    assert all(is_safe_cut(request.messages(), cut) for cut in cuts)
