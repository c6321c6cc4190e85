"""With a real archive, a stub (its locator included) is never longer than what it replaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxbudget.archives import FileArchive
from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import BudgetExceeded
from ctxbudget.tokens import CJKCounter

COUNTER = CJKCounter()


def body(outputs: list[str]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "the task"}]
    for n, output in enumerate(outputs):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": output},
        ]
    messages += [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next?"}]
    return {"model": "gpt-4o", "messages": messages}


def tool_outputs(sent: dict[str, Any]) -> list[str]:
    return [m["content"] for m in sent["messages"] if m["role"] == "tool"]


def test_short_outputs_stay_when_their_stub_would_be_longer(tmp_path: Path) -> None:
    """Issue 11: with DirectoryArchive, 605 tokens became 755 and the request was refused."""
    short = [f"{n}: " + "ok " * 25 for n in range(6)]  # ~80 chars: above the bare stub's length
    long = ["L" + "log line " * 400]
    original = body(long + short)
    full = enforce_budget(original, BudgetConfig(), counter=COUNTER).estimate_before
    config = BudgetConfig(max_input_tokens=full - 200, tool_outputs_kept=0)
    archive = FileArchive(tmp_path / "originals")
    result = enforce_budget(original, config, counter=COUNTER, archive=archive)
    assert result.info.compressed
    assert result.estimate_after <= full - 200
    sent = tool_outputs(result.body)
    for before, after in zip(tool_outputs(original), sent, strict=True):
        assert len(after) <= len(before), "no stub is longer than its output"
    assert sent[1:] == short, "the short outputs are kept as they are"
    assert sent[0].startswith("[tool_echo stripped") or "[trimmed" in sent[0]


def test_stubbing_with_an_archive_never_makes_a_request_bigger(tmp_path: Path) -> None:
    """Outputs between the bare stub's length and the stub with a locator: without an
    archive they shrink; with one they are kept, so the request never grows."""
    outputs = [f"{n}: " + "x" * 75 for n in range(12)]
    original = body(outputs)
    full = enforce_budget(original, BudgetConfig(), counter=COUNTER).estimate_before
    config = BudgetConfig(max_input_tokens=full - 40, tool_outputs_kept=0)
    without = enforce_budget(original, config, counter=COUNTER)
    assert without.info.stages == ("drop_oldest_tool_echoes",)
    with pytest.raises(BudgetExceeded) as refused:
        enforce_budget(original, config, counter=COUNTER, archive=FileArchive(tmp_path / "a"))
    assert refused.value.estimated_tokens == full, "kept as it was, never bigger"
