"""Each importer reads its agent's transcript into events the ledger accepts and the
meter anchors on, with the agent's usage mapped into the ledger's disjoint buckets.

The fixtures are small synthetic transcripts written for these tests in each
agent's format (no real session text).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.transcripts import ImportedSession, detect_format, read_transcript

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE_LOG = FIXTURES / "claude_code_session.jsonl"
CLAUDE_STREAM = FIXTURES / "claude_stream.jsonl"
CODEX = FIXTURES / "rollout-2026-01-02T10-00-00-0199a0b1.jsonl"
OPENAI = FIXTURES / "openai_chat.json"
ANTHROPIC = FIXTURES / "anthropic_messages.json"
OPENHANDS = FIXTURES / "openhands_trajectory.json"

FORMATS = [
    (CLAUDE_LOG, "claude-code"),
    (CLAUDE_STREAM, "claude-code"),
    (CODEX, "codex"),
    (OPENAI, "openai"),
    (ANTHROPIC, "anthropic"),
    (OPENHANDS, "openhands"),
]


def messages(session: ImportedSession) -> list[dict[str, Any]]:
    return [e["data"] for e in session.events if e["type"] == "assistant/message"]


def imported(session: ImportedSession) -> MemoryLedger:
    ledger = MemoryLedger()
    ledger.append_many(session.session_id, list(session.events))
    return ledger


@pytest.mark.parametrize(("path", "format"), FORMATS, ids=lambda v: getattr(v, "name", v))
def test_auto_detects_the_format_and_reads_the_same(path: Path, format: str) -> None:
    assert read_transcript(path) == read_transcript(path, format=format)


@pytest.mark.parametrize(("path", "format"), FORMATS, ids=lambda v: getattr(v, "name", v))
def test_every_session_is_accepted_by_the_ledger_and_anchors_the_meter(
    path: Path, format: str
) -> None:
    for session in read_transcript(path, format=format):
        assert session.source == str(path)
        assert session.calls == session.calls_with_usage > 0
        ledger = imported(session)
        measured = TokenMeter(ledger).measure(session.session_id)
        last = messages(session)[-1]["usage"]
        assert measured.baseline.kind == "usage"
        assert measured.baseline.tokens == sum(last[k] for k in last if k != "reasoning_tokens")
        assert len(TokenMeter(ledger).history(session.session_id)) == session.calls


def test_claude_code_merges_the_lines_of_one_response() -> None:
    """Three lines repeat msg_01 and its usage (and one line is written twice): one
    call with every block once and the last line's output count."""
    main = read_transcript(CLAUDE_LOG)[0]
    first = messages(main)[0]
    assert [b["type"] for b in first["content"]] == ["reasoning", "text", "tool-call"]
    assert first["content"][2]["arguments"] == '{"file_path":"/repo/utils.py"}'
    assert first["usage"] == {
        "input_tokens": 12,
        "output_tokens": 187,
        "cache_read_tokens": 9000,
        "cache_write_tokens": 4100,
    }


def test_claude_code_usage_keeps_cache_reads_and_writes_apart() -> None:
    main = read_transcript(CLAUDE_LOG)[0]
    second = messages(main)[1]["usage"]
    assert second == {
        "input_tokens": 7,
        "output_tokens": 42,
        "cache_read_tokens": 13100,
        "cache_write_tokens": 350,
    }


def test_claude_code_sidechains_get_sessions_of_their_own() -> None:
    main, sidechain = read_transcript(CLAUDE_LOG)
    assert main.session_id == "5f0c2a9e-1111-4c2b-9a55-000000000001"
    assert sidechain.session_id == f"{main.session_id}/agent-b7e1"
    assert [m["provenance"]["model"] for m in messages(sidechain)] == ["claude-haiku-4-5"]
    assert all(m["provenance"]["model"] != "claude-haiku-4-5" for m in messages(main))


def test_stream_json_sub_agents_are_split_by_their_parent_tool_call() -> None:
    main, task = read_transcript(CLAUDE_STREAM)
    assert task.session_id == f"{main.session_id}/agent-toolu_task"
    assert [m["usage"]["input_tokens"] for m in messages(main)] == [3, 20]
    assert messages(main)[0]["usage"]["output_tokens"] == 61
    assert messages(task)[0]["usage"]["input_tokens"] == 1200


def test_synthetic_messages_are_not_calls() -> None:
    main = read_transcript(CLAUDE_LOG)[0]
    assert all(m["provenance"]["model"] != "<synthetic>" for m in messages(main))
    assert main.calls == 3


def test_a_compaction_replaces_what_the_model_saw() -> None:
    main = read_transcript(CLAUDE_LOG)[0]
    ledger = imported(main)
    summary = next(e for e in main.events if isinstance(e.get("surface_op"), dict))
    assert summary["data"]["source"] == {"kind": "agent-compaction", "agent": "claude-code"}
    surface = [n.seq for n in TokenMeter(ledger).measure(main.session_id).nodes]
    assert surface[0] == main.events.index(summary)
    assert len(surface) == 3  # the summary, the next user message, the answer


def test_codex_input_includes_cached_tokens() -> None:
    (session,) = read_transcript(CODEX)
    first, second = (m["usage"] for m in messages(session))
    assert first == {
        "input_tokens": 6100,
        "output_tokens": 140,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "reasoning_tokens": 64,
    }
    assert (second["input_tokens"], second["cache_read_tokens"]) == (6400 - 6016, 6016)


def test_codex_calls_end_at_token_counts_and_repeats_add_nothing() -> None:
    (session,) = read_transcript(CODEX)
    assert session.session_id == "0199a0b1-3333-7c00-9d22-000000000003"
    assert session.calls == 2
    first = messages(session)[0]
    assert [b["type"] for b in first["content"]] == ["reasoning", "tool-call"]
    kinds = [e["type"] for e in session.events]
    assert kinds[0] == "context/message"  # the developer message
    header = next(e for e in session.events if e["type"] == "request/header")["data"]["header"]
    assert header == {
        "config": {"provider": "openai", "model": "gpt-5-codex"},
        "system": "You are a coding agent running in a terminal.",
    }
    results = [e["data"] for e in session.events if e["type"] == "tool/result"]
    assert [(r["call_id"], r["step"]) for r in results] == [("call_1", 1)]


def test_openai_chat_usage_subtracts_cached_tokens() -> None:
    (session,) = read_transcript(OPENAI)
    header = next(e for e in session.events if e["type"] == "request/header")["data"]["header"]
    assert header["system"] == "You are a careful assistant."
    assert header["tools"][0]["function"]["name"] == "read_file"
    response = messages(session)[-1]["usage"]
    assert (response["input_tokens"], response["cache_read_tokens"]) == (32, 128)


def test_anthropic_messages_with_response() -> None:
    (session,) = read_transcript(ANTHROPIC)
    first, response = messages(session)
    assert first["content"][0] == {
        "type": "tool-call",
        "id": "toolu_w",
        "name": "get_weather",
        "arguments": '{"city":"Oslo"}',
    }
    assert response["usage"]["cache_read_tokens"] == 430


def test_openhands_shows_what_the_model_saw() -> None:
    """Several actions of one response are one call; an edit is shown to the model as
    its formatted output, a command with its working directory and exit code."""
    (session,) = read_transcript(OPENHANDS)
    assert session.calls == 2
    results = [
        e["data"]["content"][0]["text"] for e in session.events if e["type"] == "tool/result"
    ]
    assert results[0] == "File created successfully at: /w/hello.py"
    assert results[1] == (
        "hi\n[Current working directory: /w]\n[Python interpreter: /usr/bin/python3]\n"
        "[Command finished with exit code 0]"
    )
    usage = messages(session)[0]["usage"]
    assert usage == {
        "input_tokens": 4,
        "output_tokens": 60,
        "cache_read_tokens": 2890,
        "cache_write_tokens": 6,
    }


def test_a_rewound_branch_is_dropped(tmp_path: Path) -> None:
    """The user rewound to before their second prompt and sent another: the model
    never saw the first second prompt again, so only the branch continued is kept."""

    def record(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> str:
        message: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            usage = {"input_tokens": 100, "output_tokens": 5}
            message |= {"id": f"msg-{uuid}", "model": "claude", "usage": usage}
        fields = {"uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False}
        return json.dumps({"type": kind, **fields, "message": message, **extra})

    lines = [
        record("p1", None, "user", "first prompt"),
        record("a1", "p1", "assistant", [{"type": "text", "text": "first answer"}]),
        record("p2", "a1", "user", "a prompt the user took back"),
        record("a2", "p2", "assistant", [{"type": "text", "text": "an answer nobody kept"}]),
        record("p3", "a1", "user", "the prompt sent instead"),
        record("a3", "p3", "assistant", [{"type": "text", "text": "the answer kept"}]),
    ]
    path = tmp_path / "rewound.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (session,) = read_transcript(path)
    texts = [e["data"]["content"][0]["text"] for e in session.events if "content" in e["data"]]
    assert texts == ["first prompt", "first answer", "the prompt sent instead", "the answer kept"]


def test_a_saved_list_of_messages_reads_as_the_body_holding_them(tmp_path: Path) -> None:
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "2+2?"},
        {
            "role": "assistant",
            "content": "4",
            "usage": {"prompt_tokens": 20, "completion_tokens": 1},
        },
    ]
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(conversation), encoding="utf-8")
    (session,) = read_transcript(path)
    assert session.agent == "openai"
    assert messages(session)[0]["usage"]["input_tokens"] == 20


@pytest.mark.parametrize(("path", "format"), FORMATS, ids=lambda v: getattr(v, "name", v))
def test_detect_format_names_the_format(path: Path, format: str) -> None:
    assert detect_format(path) == format


def test_codex_cache_writes_are_part_of_the_input(tmp_path: Path) -> None:
    """Newer rollouts report cache_write_input_tokens inside input_tokens too."""
    usage = {
        "input_tokens": 9_000,
        "cached_input_tokens": 6_000,
        "cache_write_input_tokens": 2_500,
        "output_tokens": 40,
        "reasoning_output_tokens": 0,
        "total_tokens": 9_040,
    }
    lines = [
        {"type": "session_meta", "payload": {"id": "c"}},
        {"type": "turn_context", "payload": {"model": "gpt-5.5"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            },
        },
        {
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"total_token_usage": usage, "last_token_usage": usage},
            },
        },
    ]
    path = tmp_path / "rollout-new.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    (session,) = read_transcript(path)
    recorded = messages(session)[0]["usage"]
    assert (recorded["input_tokens"], recorded["cache_read_tokens"]) == (500, 6_000)
    assert recorded["cache_write_tokens"] == 2_500
