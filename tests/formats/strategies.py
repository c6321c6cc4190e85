"""Hypothesis strategies: OpenAI Chat, OpenAI Responses and Anthropic requests with tool
calls and mixed English/CJK text, built from one abstract conversation so every format gets
the same shapes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

WORDS = (
    "the",
    "agent",
    "reads",
    "file",
    "contract",
    "budget",
    "tokens",
    "ok",
    "\n",
    "你好",
    "世界",
    "合約",
    "金額",
    "新台幣",
    "。",
    "、",
    "한국어",
    "カタカナ",
    "😀",
    "𠀀",
)

phrase = st.lists(st.sampled_from(WORDS), max_size=40).map(" ".join)
# A phrase repeated: long texts (past the 800-character trim threshold) stay cheap to draw.
text = st.tuples(phrase, st.integers(1, 60)).map(lambda pair: pair[0] * pair[1])
short_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)

SYSTEM_SECTIONS = (
    "## Identity\nYou are the contract agent. 你是合約助理。\n",
    "## Current Working State\n- step 3 of 5\n- 正在核對金額\n",
    "## 安全邊界\n- 不得洩漏客戶資料\n",
    "## Notes\nfree text that may go\n",
)


@dataclass(frozen=True)
class Call:
    name: str
    arguments: dict[str, Any]
    output: str


@dataclass(frozen=True)
class Exchange:
    user: str
    calls: tuple[Call, ...]
    reply: str | None  # None only on the last exchange: its tool results are pending


@dataclass(frozen=True)
class Conversation:
    system: str
    exchanges: tuple[Exchange, ...]
    pending_user: str | None  # None: the pending turn is the last exchange's tool results


calls = st.lists(
    st.builds(
        Call,
        st.sampled_from(["read_file", "search", "查詢"]),
        st.fixed_dictionaries({"q": short_text}),
        text,
    ),
    max_size=3,
).map(tuple)


@st.composite
def conversations(draw: st.DrawFn) -> Conversation:
    sections = draw(st.lists(st.sampled_from(SYSTEM_SECTIONS), max_size=4, unique=True))
    system = draw(short_text) + "\n" + "".join(sections)
    count = draw(st.integers(1, 8))
    exchanges = [Exchange(draw(text), draw(calls), draw(text)) for _ in range(count)]
    last_calls = draw(calls)
    if last_calls and draw(st.booleans()):
        exchanges.append(Exchange(draw(text), last_calls, None))
        return Conversation(system, tuple(exchanges), None)
    return Conversation(system, tuple(exchanges), draw(text))


def openai_body(conv: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": conv.system}]
    for n, ex in enumerate(conv.exchanges):
        messages.append({"role": "user", "content": ex.user})
        if ex.calls:
            ids = [f"call_{n}_{i}" for i in range(len(ex.calls))]
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                        }
                        for cid, c in zip(ids, ex.calls, strict=True)
                    ],
                }
            )
            messages += [
                {"role": "tool", "tool_call_id": cid, "content": c.output}
                for cid, c in zip(ids, ex.calls, strict=True)
            ]
        if ex.reply is not None:
            messages.append({"role": "assistant", "content": ex.reply})
    if conv.pending_user is not None:
        messages.append({"role": "user", "content": [{"type": "text", "text": conv.pending_user}]})
    return {"model": "gpt-4o", "messages": messages, "temperature": 0.2, "tools": TOOLS_OPENAI}


def anthropic_body(conv: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for n, ex in enumerate(conv.exchanges):
        messages.append({"role": "user", "content": ex.user})
        if ex.calls:
            ids = [f"toolu_{n}_{i}" for i in range(len(ex.calls))]
            messages.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "calling tools"},
                        *(
                            {"type": "tool_use", "id": cid, "name": c.name, "input": c.arguments}
                            for cid, c in zip(ids, ex.calls, strict=True)
                        ),
                    ],
                }
            )
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": cid, "content": c.output}
                        for cid, c in zip(ids, ex.calls, strict=True)
                    ],
                }
            )
        if ex.reply is not None:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": ex.reply}]})
    if conv.pending_user is not None:
        messages.append({"role": "user", "content": conv.pending_user})
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": conv.system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
        "tools": TOOLS_ANTHROPIC,
    }


def responses_body(conv: Conversation) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for n, ex in enumerate(conv.exchanges):
        items.append({"role": "user", "content": ex.user})
        if ex.calls:
            summary = [{"type": "summary_text", "text": "checking the files"}]
            items.append({"type": "reasoning", "id": f"rs_{n}", "summary": summary})
            ids = [f"fc_{n}_{i}" for i in range(len(ex.calls))]
            items += [
                {
                    "type": "function_call",
                    "call_id": cid,
                    "name": c.name,
                    "arguments": json.dumps(c.arguments),
                }
                for cid, c in zip(ids, ex.calls, strict=True)
            ]
            items += [
                {"type": "function_call_output", "call_id": cid, "output": c.output}
                for cid, c in zip(ids, ex.calls, strict=True)
            ]
        if ex.reply is not None:
            items.append({"role": "assistant", "content": ex.reply})
    if conv.pending_user is not None:
        items.append(
            {"role": "user", "content": [{"type": "input_text", "text": conv.pending_user}]}
        )
    return {
        "model": "gpt-5",
        "instructions": conv.system,
        "input": items,
        "tools": TOOLS_RESPONSES,
        "max_output_tokens": 1024,
        "store": False,
    }


TOOLS_OPENAI = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        },
    }
]
TOOLS_ANTHROPIC = [
    {
        "name": "read_file",
        "description": "Read a file",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
]


TOOLS_RESPONSES = [
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        "strict": False,
    }
]

BUILDERS = {"openai": openai_body, "anthropic": anthropic_body, "openai-responses": responses_body}


def bodies() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """(format, body) for any of the three formats."""
    return conversations().flatmap(
        lambda conv: st.sampled_from([(name, build(conv)) for name, build in BUILDERS.items()])
    )
