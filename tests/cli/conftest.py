"""Fixtures for the command-line tests: a runner, a ledger file, request bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def ledger_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ledger.sqlite3'}"


RESPONSES_BODY: dict[str, Any] = {
    "model": "gpt-4.1",
    "instructions": "You are a careful coding agent.",
    "max_output_tokens": 2000,
    "input": [
        {"role": "user", "content": "List the files, then read main.py. 然后告诉我它做什么。"},
        {"type": "function_call", "call_id": "fc_1", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "fc_1", "output": "main.py\nutil.py"},
    ],
}
"""An OpenAI Responses body: instructions, a function call and its output."""


def tool_heavy_body(turns: int = 6, output_chars: int = 3000) -> dict[str, Any]:
    """An OpenAI Chat body with ``turns`` tool round trips of long outputs."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "## Identity\nbe brief"}]
    for n in range(turns):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages += [
            {"role": "user", "content": f"step {n}: 读取文件 file_{n}.py"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {
                "role": "tool",
                "tool_call_id": f"c{n}",
                "content": f"output {n} " + "z" * output_chars,
            },
            {"role": "assistant", "content": "ok"},
        ]
    messages.append({"role": "user", "content": "next?"})
    return {"model": "gpt-4o", "messages": messages}


@pytest.fixture
def body_path(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(tool_heavy_body()), "utf-8")
    return path
