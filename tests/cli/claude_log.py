"""A small Claude Code session log, written for these tests in Claude Code's JSONL shape.

One line per record with ``sessionId``, ``uuid`` and ``parentUuid``; one API
response spread over one ``assistant`` line per content block, each repeating the
same ``message.id`` and ``usage``; tool results come back in ``user`` lines.
Usage is Anthropic's: ``input_tokens`` excludes the cache reads and writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION_ID = "3f1c9a52-7d4e-4b8a-9c61-0e2f5a7b8c90"
MODEL = "claude-sonnet-4-5-20250929"


def _usage(fresh: int, read: int, write: int, output: int) -> dict[str, int]:
    return {
        "input_tokens": fresh,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "output_tokens": output,
    }


def claude_code_records(calls: int = 4) -> list[dict[str, Any]]:
    """``calls`` tool round trips; each call's prompt is the previous one plus the result."""
    records: list[dict[str, Any]] = []
    parent: str | None = None

    def add(kind: str, message: dict[str, Any]) -> None:
        nonlocal parent
        uuid = f"u{len(records):04d}"
        records.append(
            {
                "type": kind,
                "sessionId": SESSION_ID,
                "uuid": uuid,
                "parentUuid": parent,
                "isSidechain": False,
                "cwd": "/home/dev/stockroom",
                "message": message,
            }
        )
        parent = uuid

    add("user", {"role": "user", "content": "Find why stock goes negative. 请找出原因。"})
    prompt = 9_000
    for n in range(calls):
        usage = _usage(3, prompt - 3, 0 if n == 0 else 180, 40)
        message_id = f"msg_{n:03d}"
        tool_id = f"toolu_{n:03d}"
        for block in (
            {"type": "text", "text": f"Reading file number {n} to see how stock is updated."},
            {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"path": f"f{n}.py"}},
        ):
            add(
                "assistant",
                {
                    "id": message_id,
                    "role": "assistant",
                    "model": MODEL,
                    "content": [block],
                    "usage": usage,
                },
            )
        output = "\n".join(f"{i:4d}  stock = stock - quantity  # 第 {i} 行" for i in range(40))
        add(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output}],
            },
        )
        prompt += 700
    return records


def write_claude_code_log(directory: Path, calls: int = 4) -> Path:
    """The log as ``<session id>.jsonl`` in ``directory``."""
    path = directory / f"{SESSION_ID}.jsonl"
    lines = (json.dumps(r, ensure_ascii=False) for r in claude_code_records(calls))
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path
