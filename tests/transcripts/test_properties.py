"""Properties of the Claude Code importer over generated session logs: however a
response is spread over lines (repeated, with sub-agent lines in between), it is one
call with each block once and the final usage, and the ledger and meter take it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.transcripts import read_transcript

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30)
calls = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["text", "tool_use"]), min_size=1, max_size=4),
        st.integers(1, 3),  # how many times each line is written
        st.booleans(),  # a sub-agent line in between
        words,
    ),
    min_size=1,
    max_size=6,
)


def session_log(spec: list[tuple[list[str], int, bool, str]]) -> tuple[list[str], list[Any]]:
    """The lines of a generated log, and per call (block types, final usage)."""
    lines: list[str] = []
    expected: list[Any] = []

    def add(record: dict[str, Any]) -> None:
        lines.append(json.dumps({"sessionId": "s", "isSidechain": False, **record}))

    add({"type": "user", "message": {"role": "user", "content": "start"}})
    for number, (kinds, repeats, sidechain, text) in enumerate(spec):
        usage = {"input_tokens": 10 + number, "cache_read_input_tokens": 100 * number}
        calls_made = []
        for index, kind in enumerate(kinds):
            if kind == "text":
                block: dict[str, Any] = {"type": "text", "text": f"{text} {index}"}
            else:
                block = {
                    "type": "tool_use",
                    "id": f"t{number}-{index}",
                    "name": "Read",
                    "input": {},
                }
                calls_made.append(block["id"])
            final = dict(usage, output_tokens=5 * (index + 1))
            message = {"id": f"m{number}", "model": "claude", "content": [block], "usage": final}
            for _ in range(repeats):
                add({"type": "assistant", "message": message})
            if sidechain:
                side = {"id": f"side{number}", "model": "haiku", "content": [], "usage": usage}
                add({"type": "assistant", "isSidechain": True, "agentId": "a", "message": side})
        results = [{"type": "tool_result", "tool_use_id": c, "content": "ok"} for c in calls_made]
        if results:
            add({"type": "user", "message": {"role": "user", "content": results}})
        expected.append((["tool-call" if k == "tool_use" else k for k in kinds], final))
    return lines, expected


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(calls)
def test_one_call_per_message_id_with_the_final_usage(
    tmp_path: Path, spec: list[tuple[list[str], int, bool, str]]
) -> None:
    lines, expected = session_log(spec)
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    main = read_transcript(path)[0]
    got = [e["data"] for e in main.events if e["type"] == "assistant/message"]
    assert [[b["type"] for b in m["content"]] for m in got] == [kinds for kinds, _ in expected]
    for message, (_, final) in zip(got, expected, strict=True):
        assert message["usage"]["output_tokens"] == final["output_tokens"]
        assert message["usage"]["cache_read_tokens"] == final["cache_read_input_tokens"]
    for session in read_transcript(path):
        ledger = MemoryLedger()
        ledger.append_many(session.session_id, list(session.events))
        assert len(TokenMeter(ledger).history(session.session_id)) == session.calls
