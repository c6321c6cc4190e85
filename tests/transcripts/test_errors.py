"""A transcript that cannot be read is one clear TranscriptError naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxbudget.errors import CtxBudgetError, TranscriptError
from ctxbudget.transcripts import read_transcript

from .test_readers import CLAUDE_LOG


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_a_broken_line_is_named_with_file_and_line(tmp_path: Path) -> None:
    lines = CLAUDE_LOG.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3][: len(lines[3]) // 2]  # cut mid-record
    path = write(tmp_path, "cut.jsonl", "\n".join(lines))
    with pytest.raises(TranscriptError) as caught:
        read_transcript(path)
    assert (caught.value.path, caught.value.line) == (str(path), 4)
    assert str(caught.value).startswith(f"{path}:4: is not JSON")
    assert isinstance(caught.value, CtxBudgetError)
    assert caught.value.code == "transcript_invalid"


def test_a_record_of_the_wrong_shape_names_its_line(tmp_path: Path) -> None:
    message = {"id": "m", "model": "x", "content": 5}
    bad = {"type": "assistant", "sessionId": "s", "uuid": "u", "message": message}
    good = {"type": "user", "sessionId": "s", "uuid": "v", "message": {"content": "hi"}}
    path = write(tmp_path, "s.jsonl", json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(TranscriptError, match=r"s\.jsonl:2: assistant message: message content"):
        read_transcript(path)


def test_bad_usage_is_refused_not_guessed(tmp_path: Path) -> None:
    record = {
        "type": "assistant",
        "sessionId": "s",
        "message": {"id": "m", "model": "x", "content": [], "usage": {"input_tokens": "12"}},
    }
    path = write(tmp_path, "u.jsonl", json.dumps(record) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(TranscriptError, match=r":1: .*'input_tokens' is '12'"):
        read_transcript(path)


def test_a_chat_body_that_fits_both_formats_asks_which(tmp_path: Path) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}
    path = write(tmp_path, "chat.json", json.dumps(body))
    with pytest.raises(TranscriptError, match="pass format='openai' or format='anthropic'"):
        read_transcript(path)
    (session,) = read_transcript(path, format="openai")
    assert session.calls == 1


def test_an_unknown_format_says_which_ones_exist(tmp_path: Path) -> None:
    path = write(tmp_path, "other.jsonl", '{"conversations": []}\n{"conversations": []}\n')
    with pytest.raises(TranscriptError, match="not a transcript format ctxbudget knows"):
        read_transcript(path)
    with pytest.raises(TranscriptError, match="unknown transcript format 'cursor'"):
        read_transcript(path, format="cursor")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "is empty"),
        (b"# notes\n\nno transcript here\n", "holds no transcript"),
        (b'{"type": "user"}\n\xff\xfe\n', "is not UTF-8"),
    ],
)
def test_files_that_hold_no_transcript(tmp_path: Path, content: bytes, problem: str) -> None:
    with pytest.raises(TranscriptError, match=problem):
        read_transcript(write(tmp_path, "f.jsonl", content))


def test_a_missing_file_is_a_transcript_error(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot be read") as caught:
        read_transcript(tmp_path / "gone.jsonl")
    assert caught.value.line is None


def test_a_request_body_the_format_refuses(tmp_path: Path) -> None:
    body = {"system": "s", "messages": [{"role": "robot", "content": "hi"}]}
    with pytest.raises(TranscriptError, match="Anthropic request"):
        read_transcript(write(tmp_path, "bad.json", json.dumps(body)))


def test_json_inside_markdown_is_read(tmp_path: Path) -> None:
    events = [json.loads(line) for line in CLAUDE_LOG.read_text("utf-8").splitlines()]
    report = "# Run\n\n```json\n// saved by a harness\n" + json.dumps({"_EVENTS": events})
    path = write(tmp_path, "report.md", report + "\n// end\n```\n")
    assert read_transcript(path) == [
        s.__class__(s.session_id, s.agent, s.events, str(path)) for s in read_transcript(CLAUDE_LOG)
    ]


def test_a_transcript_with_nothing_to_import_says_why(tmp_path: Path) -> None:
    """`claude -p --output-format json` without --verbose keeps only the result event."""
    result = {"type": "result", "subtype": "success", "session_id": "s", "result": "done"}
    path = write(tmp_path, "result.json", json.dumps(result))
    with pytest.raises(TranscriptError, match=r"holds no messages or calls.*--verbose"):
        read_transcript(path)
