"""Least lossy first on real traffic: how much of the budget does enforcement keep?

Reads the tool-heavy sessions of the shared corpus at run time (never copying
them) through ``ctxbudget.transcripts``, turns each into one OpenAI Chat body
(the whole session as history, then "continue"), and enforces it at 90, 70, 50,
30 and 10 % of its own estimate. Prints, per budget: how many fit, the share of
the budget the sent request uses (median, lowest), how often the task (the first
user message) is sent intact, and whether any result broke a promise (over
budget, a tool pair split, the system prompt changed). Not a timed test.

    .venv/bin/python benchmarks/enforce_real_traffic.py [CORPUS_DIR]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxbudget.archives import event_messages
from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ctxbudget.content.pairing import check_pairs
from ctxbudget.enforce import BudgetConfig, enforce_budget
from ctxbudget.errors import BudgetExceeded, CtxBudgetError, TranscriptError
from ctxbudget.formats import parse_request
from ctxbudget.ledger import SURFACE_TYPES, MemoryLedger
from ctxbudget.testing import RecordingSink
from ctxbudget.transcripts import read_transcript

CORPUS = Path(__file__).resolve().parents[2] / "shared/corpus/transcripts"
FRACTIONS = (0.9, 0.7, 0.5, 0.3, 0.1)
MIN_TOOL_RESULTS = 10
SYSTEM = "## Identity\nYou are the coding agent.\n## Notes\nWork in small steps."


def _text(blocks: Any) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


def _chat_messages(messages: list[Message]) -> Iterator[dict[str, Any]]:
    for message in messages:
        if message.role == "tool":
            result = message.content[0]
            assert isinstance(result, ToolResultBlock)
            yield {
                "role": "tool",
                "tool_call_id": result.tool_call_id,
                "content": _text(result.content),
            }
        elif message.role == "assistant":
            calls = [
                {
                    "id": b.id,
                    "type": "function",
                    "function": {"name": b.name, "arguments": b.arguments},
                }
                for b in message.content
                if isinstance(b, ToolCallBlock)
            ]
            out: dict[str, Any] = {"role": "assistant", "content": _text(message.content) or None}
            if calls:
                out["tool_calls"] = calls
            yield out
        elif _text(message.content):
            yield {"role": "user", "content": _text(message.content)}


def bodies(corpus: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, body) for every tool-heavy session whose tool pairs are intact."""
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "README.md"):
        try:
            sessions = read_transcript(path)
        except (TranscriptError, CtxBudgetError, OSError, ValueError):
            continue
        for session in sessions:
            ledger = MemoryLedger()
            try:
                ledger.append_many(session.session_id, list(session.events))
            except CtxBudgetError:
                continue
            events = [e for e in ledger.events(session.session_id) if e.type in SURFACE_TYPES]
            messages = [
                m for m in event_messages(events) if m.role in ("user", "assistant", "tool")
            ]
            results = sum(1 for m in messages if m.role == "tool")
            if results < MIN_TOOL_RESULTS or not check_pairs(messages).ok:
                continue
            chat = [{"role": "system", "content": SYSTEM}, *_chat_messages(messages)]
            chat.append({"role": "user", "content": "continue"})
            body = {"model": "gpt-4o", "messages": chat}
            try:
                parse_request(body, "openai")
            except CtxBudgetError:
                continue
            yield f"{path.parent.name}/{path.name}", body


def first_user(body: dict[str, Any]) -> Any:
    return next(m for m in body["messages"] if m["role"] == "user")


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    if not corpus.is_dir():
        raise SystemExit(f"no corpus at {corpus}")
    found = list(bodies(corpus))
    print(f"{len(found)} tool-heavy sessions (>= {MIN_TOOL_RESULTS} tool results) in {corpus}")
    for summarizer in ("", "extractive"):
        print(f"\nsummarizer: {summarizer or 'none'}")
        table(found, summarizer)


def table(found: list[tuple[str, dict[str, Any]]], summarizer: str) -> None:
    print("budget  fit/refused  used: median  lowest  task intact  broken promises  stages")
    for fraction in FRACTIONS:
        used: list[float] = []
        intact = refused = broken = 0
        stages: dict[str, int] = {}
        for _, body in found:
            full = enforce_budget(body, BudgetConfig(), format="openai").estimate_before
            budget = max(1, int(full * fraction))
            config = BudgetConfig(max_input_tokens=budget, summarizer=summarizer)
            try:
                result = enforce_budget(body, config, format="openai", sink=RecordingSink())
            except BudgetExceeded:
                refused += 1
                continue
            used.append(result.estimate_after / budget)
            intact += first_user(result.body) == first_user(body)
            sent = parse_request(result.body, "openai")
            broken += (
                result.estimate_after > budget
                or not check_pairs(sent.messages()).ok
                or result.body["messages"][0] != body["messages"][0]
            )
            key = result.info.stages_text or "none"
            stages[key] = stages.get(key, 0) + 1
        fits = len(used)
        median = statistics.median(used) if used else 0.0
        lowest = min(used) if used else 0.0
        print(
            f"{fraction:>5.0%}   {fits:>3}/{refused:<3}      {median:>6.1%}  {lowest:>6.1%}"
            f"   {intact:>3}/{fits:<3}        {broken}              {json.dumps(stages)}"
        )


if __name__ == "__main__":
    main()
