"""Session fixtures for the compaction tests: the shapes of the vectors of seed 002's
compaction backend (docs/seeds.md, docs/compaction.md)."""

from __future__ import annotations

from typing import Any

from ctxbudget.ledger import Ledger

FIXTURE_TEXT = ("fixture " * 40).strip()  # 319 characters


def text(t: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t}]


def user(t: str) -> dict[str, Any]:
    return {
        "type": "user/message",
        "data": {"content": text(t), "source": {"kind": "user"}},
        "surface_op": "append",
    }


def header(model: str = "test-model", **extra: Any) -> dict[str, Any]:
    config = {"provider": model, "model": model}
    return {"type": "request/header", "data": {"header": {"config": config, **extra}}}


def assistant(turn: int, content: list[dict[str, Any]], step: int = 1) -> dict[str, Any]:
    data = {"turn": turn, "step": step, "content": content, "provenance": {"provider": "p"}}
    return {"type": "assistant/message", "data": data, "surface_op": "append"}


def step(kind: str, turn: int, number: int = 1) -> dict[str, Any]:
    return {"type": f"step/{kind}", "data": {"turn": turn, "step": number}}


def turn(kind: str, number: int) -> dict[str, Any]:
    return {"type": f"turn/{kind}", "data": {"turn": number}}


def tool_call(turn_no: int, call_id: str, name: str = "read") -> dict[str, Any]:
    return {
        "type": "tool/call",
        "data": {"turn": turn_no, "step": 1, "call_id": call_id, "name": name, "arguments": "{}"},
    }


def tool_result(turn_no: int, call_id: str, t: str, error: bool = False) -> dict[str, Any]:
    data = {"turn": turn_no, "step": 1, "call_id": call_id, "content": text(t), "is_error": error}
    return {"type": "tool/result", "data": data, "surface_op": "append"}


def conversation(ledger: Ledger, sid: str, turns: int, body: str = FIXTURE_TEXT) -> None:
    """``turns`` closed turns of user + assistant text, then one open turn."""
    events: list[dict[str, Any]] = []
    for t in range(1, turns + 1):
        events += [turn("start", t), user(f"{body} user {t}"), step("start", t)]
        if t == 1:
            events.append(header())
        events += [assistant(t, text(f"{body} assistant {t}")), step("end", t), turn("end", t)]
    events.append(turn("start", turns + 1))
    ledger.append_many(sid, events)


def tool_conversation(ledger: Ledger, sid: str, turns: int = 3, size: int = 300) -> None:
    """Turns of user request, assistant text + tool call, tool result; then an open turn."""
    events: list[dict[str, Any]] = []
    for t in range(1, turns + 1):
        events += [turn("start", t), user(f"request {t} " * size), step("start", t)]
        if t == 1:
            events.append(header())
        call = {"type": "tool-call", "id": f"c{t}", "name": "read", "arguments": "{}"}
        events += [
            assistant(t, [*text(f"calling {t} " * size), call]),
            tool_call(t, f"c{t}"),
            tool_result(t, f"c{t}", f"result {t} " * size),
            step("end", t),
            turn("end", t),
        ]
    events.append(turn("start", turns + 1))
    ledger.append_many(sid, events)
