"""drop_oldest_tool_echoes: stub texts (seed 003's, see docs/enforce.md) and the stage itself."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ctxbudget.content import TextBlock, ToolResultBlock
from ctxbudget.enforce import STUB_UNAVAILABLE, DropOldestToolEchoes
from ctxbudget.enforce.echoes import blocks_text, stub_text
from ctxbudget.enforce.stage import Call
from ctxbudget.formats import Request, openai
from tests.enforce.stages import stage_context

STAGE = DropOldestToolEchoes()


def test_reference_stub_texts() -> None:
    assert stub_text(21, None) == ("[tool_echo stripped — 21 bytes dropped; original unavailable]")
    assert stub_text(500, None) == (
        "[tool_echo stripped — 500 bytes dropped; original unavailable]"
    )
    assert stub_text(len("你好".encode()), None) == (
        "[tool_echo stripped — 6 bytes dropped; original unavailable]"
    )
    assert (
        stub_text(9, "h/1") == "[tool_echo stripped — 9 bytes archived; retrieve with handle h/1]"
    )
    assert STUB_UNAVAILABLE.format(size=1).count("—") == 1


def call(call_id: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "read", "arguments": "{}"}}
        ],
    }


def request(*outputs: str) -> Request:
    messages: list[dict[str, Any]] = []
    for n, output in enumerate(outputs):
        messages += [
            {"role": "user", "content": f"old user message {n} — full content preserved"},
            call(f"c{n}"),
            {"role": "tool", "tool_call_id": f"c{n}", "content": output},
            {"role": "assistant", "content": f"old assistant reply {n}"},
        ]
    messages.append({"role": "user", "content": "fresh"})
    return openai.parse_request({"model": "m", "messages": messages})


def run(
    flow: Generator[Call, str, Request | None], locator: str = "h/{n}"
) -> tuple[Request | None, list[str]]:
    archived: list[str] = []
    try:
        call = next(flow)
        while True:
            assert type(call).__name__ == "ArchiveCall"
            block = call.original.messages[0].content[0]  # type: ignore[union-attr]
            assert isinstance(block, ToolResultBlock)
            archived.append(blocks_text(block.content))
            call = flow.send(locator.format(n=len(archived)))
    except StopIteration as done:
        return done.value, archived


def outputs(result: Request) -> list[str]:
    return [
        b.content[0].text  # type: ignore[union-attr]
        for m in result.messages()
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


def test_oldest_first_newest_kept_other_roles_untouched() -> None:
    original = request("q" * 500, "r" * 500, "s" * 500)
    result, archived = run(STAGE.run(original, stage_context(0, tool_outputs_kept=1)))
    assert result is not None
    assert archived == []
    assert outputs(result) == [stub_text(500, None), stub_text(500, None), "s" * 500]
    others = [m for m in result.messages() if m.role in ("user", "assistant")]
    assert others == [m for m in original.messages() if m.role in ("user", "assistant")]


def test_stops_as_soon_as_the_request_fits() -> None:
    original = request("q" * 5000, "r" * 5000, "s" * 5000)
    budget = stage_context(0).pricer.segments(original).total - 100
    context = stage_context(budget, tool_outputs_kept=0, can_archive=True)
    result, archived = run(STAGE.run(original, context))
    assert result is not None
    assert archived == ["q" * 5000]
    assert outputs(result) == [stub_text(5000, "h/1"), "r" * 5000, "s" * 5000]


def test_short_outputs_and_stubs_are_left_alone() -> None:
    original = request("ok", stub_text(500, None), "t" * 500)
    result, archived = run(
        STAGE.run(original, stage_context(0, tool_outputs_kept=1, can_archive=True))
    )
    assert result is None
    assert archived == []


def test_results_keep_their_call_ids_and_error_flags() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            call("c0"),
            {"role": "tool", "tool_call_id": "c0", "content": "e" * 900},
            {"role": "assistant", "content": "failed"},
            {"role": "user", "content": "again"},
        ],
    }
    result, _ = run(STAGE.run(openai.parse_request(body), stage_context(0, tool_outputs_kept=0)))
    assert result is not None
    block = result.conversation[2].message.content[0]
    assert block == ToolResultBlock("c0", (TextBlock(stub_text(900, None)),))


def test_a_stub_whose_locator_makes_it_no_shorter_keeps_the_output() -> None:
    """Issue 11: with an archive, short outputs became stubs longer than the output."""
    output = "z" * 90  # longer than the bare stub (about 60 chars), shorter than with a locator
    original = request(output, "y" * 5000)
    long_locator = "ctxbudget-archive:" + "0123456789abcdef0123"
    context = stage_context(0, tool_outputs_kept=0, can_archive=True)
    result, archived = run(STAGE.run(original, context), long_locator)
    assert result is not None
    assert archived == [output, "y" * 5000], "both were archived before their stubs were tried"
    assert outputs(result)[0] == output, "the stub with its locator would be longer"
    assert outputs(result)[1] == stub_text(5000, long_locator)
    for text, before in zip(outputs(result), outputs(original), strict=True):
        assert len(text) <= len(before), "no stub is longer than what it replaces"
