"""drop_oldest_tool_echoes: stub texts (reference vectors 12, 13, 42) and the stage itself."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ctxbudget.content import TextBlock, ToolResultBlock
from ctxbudget.enforce import STUB_UNAVAILABLE
from ctxbudget.enforce.echoes import drop_oldest_tool_echoes, stub_text
from ctxbudget.enforce.estimate import Pricer
from ctxbudget.enforce.protocols import ArchiveCall
from ctxbudget.formats import Request, openai
from ctxbudget.tokens import CJKCounter


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


def run(flow: Generator[ArchiveCall, str, Request | None]) -> tuple[Request | None, list[str]]:
    archived: list[str] = []
    try:
        call = next(flow)
        while True:
            archived.append(call.original.text)
            call = flow.send(f"h/{len(archived)}")
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
    pricer = Pricer(CJKCounter())
    result, archived = run(drop_oldest_tool_echoes(original, pricer, 0, keep=1, archive=False))
    assert result is not None
    assert archived == []
    assert outputs(result) == [stub_text(500, None), stub_text(500, None), "s" * 500]
    others = [m for m in result.messages() if m.role in ("user", "assistant")]
    assert others == [m for m in original.messages() if m.role in ("user", "assistant")]


def test_stops_as_soon_as_the_request_fits() -> None:
    original = request("q" * 5000, "r" * 5000, "s" * 5000)
    pricer = Pricer(CJKCounter())
    budget = pricer.segments(original).total - 100
    result, archived = run(drop_oldest_tool_echoes(original, pricer, budget, keep=0, archive=True))
    assert result is not None
    assert archived == ["q" * 5000]
    assert outputs(result) == [stub_text(5000, "h/1"), "r" * 5000, "s" * 5000]


def test_short_outputs_and_stubs_are_left_alone() -> None:
    original = request("ok", stub_text(500, None), "t" * 500)
    result, archived = run(
        drop_oldest_tool_echoes(original, Pricer(CJKCounter()), 0, keep=1, archive=True)
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
    result, _ = run(
        drop_oldest_tool_echoes(
            openai.parse_request(body), Pricer(CJKCounter()), 0, keep=0, archive=False
        )
    )
    assert result is not None
    block = result.conversation[2].message.content[0]
    assert block == ToolResultBlock("c0", (TextBlock(stub_text(900, None)),))
