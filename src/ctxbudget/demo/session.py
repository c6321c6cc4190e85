"""A short agent session the demo writes into the ledger (authored for the demo).

Two model calls with provider usage recorded on each, one tool round trip, then a
new user turn: enough for the meter to anchor on the provider's figure and price
only what came after it. The usage figures are sample values written for the demo.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["demo_session_events", "next_user_turn"]

_PROVIDER = {"provider": "openai", "model": "gpt-4o-mini"}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _header(body: Mapping[str, Any]) -> dict[str, Any]:
    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    tools = [tool["function"] for tool in body.get("tools", [])]
    config = {**_PROVIDER, "max_tokens": body.get("max_tokens", 4096)}
    return {"header": {"config": config, "system": system, "tools": tools}, "reason": "initial"}


def _assistant(step: int, content: list[dict[str, Any]], usage: dict[str, int]) -> dict[str, Any]:
    data = {"turn": 1, "step": step, "content": content, "provenance": _PROVIDER, "usage": usage}
    return {"type": "assistant/message", "data": data, "surface_op": "append"}


def demo_session_events(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The demo session's events, derived from the bundled request ``body``."""
    user, call, result = body["messages"][1], body["messages"][2], body["messages"][3]
    tool_call = call["tool_calls"][0]
    return [
        {"type": "turn/start", "data": {"turn": 1, "trigger": {"kind": "message"}}},
        {
            "type": "user/message",
            "data": {"content": _text(user["content"]), "source": {"kind": "user"}},
            "surface_op": "append",
        },
        {"type": "step/start", "data": {"turn": 1, "step": 1}},
        {"type": "request/header", "data": _header(body)},
        _assistant(
            1,
            [
                *_text(call["content"]),
                {
                    "type": "tool-call",
                    "id": tool_call["id"],
                    "name": tool_call["function"]["name"],
                    "arguments": tool_call["function"]["arguments"],
                },
            ],
            {"input_tokens": 412, "output_tokens": 31, "cache_read_tokens": 0},
        ),
        {
            "type": "tool/call",
            "data": {
                "turn": 1,
                "step": 1,
                "call_id": tool_call["id"],
                "name": tool_call["function"]["name"],
                "arguments": json.loads(tool_call["function"]["arguments"]),
            },
        },
        {
            "type": "tool/result",
            "data": {
                "turn": 1,
                "step": 1,
                "call_id": tool_call["id"],
                "content": _text(result["content"]),
                "is_error": False,
            },
            "surface_op": "append",
        },
        {"type": "step/end", "data": {"turn": 1, "step": 1}},
        {"type": "step/start", "data": {"turn": 1, "step": 2}},
        _assistant(
            2,
            _text("The test sleeps on the real clock; I will inject a fake clock."),
            {"input_tokens": 96, "output_tokens": 18, "cache_read_tokens": 1_152},
        ),
        {"type": "step/end", "data": {"turn": 1, "step": 2}},
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "done"}}},
    ]


def next_user_turn(text: str) -> list[dict[str, Any]]:
    """The events of a new user turn arriving after the session above."""
    return [
        {"type": "turn/start", "data": {"turn": 2, "trigger": {"kind": "message"}}},
        {
            "type": "user/message",
            "data": {"content": _text(text), "source": {"kind": "user"}},
            "surface_op": "append",
        },
    ]
