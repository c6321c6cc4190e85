"""``ctxbudget session import``: transcripts into the ledger, one error line per bad file."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from ctxbudget.errors import CtxBudgetError
from ctxbudget.ledger import open_ledger
from tests.cli.test_sessions import session_events


class FakeTranscriptError(CtxBudgetError):
    code = "transcript_invalid"

    def __init__(self, path: str, line: int, detail: str) -> None:
        self.path, self.line = path, line
        super().__init__(f"{path}:{line}: {detail}")


@dataclass(frozen=True)
class FakeSession:
    session_id: str
    agent: str
    events: list[dict[str, Any]] = field(default_factory=list)
    source: str = ""


def _read_transcript(path: str, format: str = "auto") -> list[FakeSession]:
    """Stands in for ctxbudget.transcripts until it lands: one JSON file, one session."""
    text = Path(path).read_text("utf-8")
    if not text.startswith("{"):
        raise FakeTranscriptError(path, 1, "not a transcript")
    data = json.loads(text)
    return [FakeSession(data["id"], format, session_events(), path)]


@pytest.fixture
def transcripts(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("ctxbudget.transcripts")
    module.read_transcript = _read_transcript  # type: ignore[attr-defined]
    module.TranscriptError = FakeTranscriptError  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ctxbudget.transcripts", module)


@pytest.mark.usefixtures("transcripts")
def test_a_bad_file_is_one_line_and_the_others_are_imported(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    good, bad, other = tmp_path / "a.json", tmp_path / "bad.jsonl", tmp_path / "b.json"
    good.write_text('{"id": "one"}', "utf-8")
    bad.write_text("garbage", "utf-8")
    other.write_text('{"id": "two"}', "utf-8")
    args = ["session", "import", str(good), str(bad), str(other), "--ledger", ledger_url]
    result = runner.invoke(main, args)
    assert result.exit_code == ExitCode.ERROR
    assert "Traceback" not in result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("ctxbudget: error")]
    assert errors == [f"ctxbudget: error [transcript_invalid]: {bad}:1: not a transcript"]
    assert "1 of 3 files could not be imported" in result.stderr
    with open_ledger(ledger_url) as store:
        assert store.sessions() == ["one", "two"]
    assert "imported auto session one" in result.stdout
    assert "2 calls with usage" in result.stdout


@pytest.mark.usefixtures("transcripts")
def test_importing_twice_skips_what_is_there(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"id": "one"}', "utf-8")
    args = ["session", "import", str(path), "--ledger", ledger_url, "--format", "codex"]
    assert runner.invoke(main, args).exit_code == 0
    again = runner.invoke(main, args)
    assert again.exit_code == 0, again.output
    assert "skipped one: already in the ledger" in again.stdout
    with open_ledger(ledger_url) as store:
        assert store.revision("one") == len(session_events())


@pytest.mark.usefixtures("transcripts")
def test_a_missing_file_is_named(runner: CliRunner, ledger_url: str, tmp_path: Path) -> None:
    missing = tmp_path / "gone.jsonl"
    result = runner.invoke(main, ["session", "import", str(missing), "--ledger", ledger_url])
    assert result.exit_code == ExitCode.ERROR
    assert str(missing) in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.usefixtures("transcripts")
def test_a_missing_file_does_not_stop_the_others(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    missing, good = tmp_path / "gone.jsonl", tmp_path / "a.json"
    good.write_text('{"id": "one"}', "utf-8")
    args = ["session", "import", str(missing), str(good), "--ledger", ledger_url]
    result = runner.invoke(main, args)
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith(f"ctxbudget: error [input_unreadable]: {missing}: cannot read")
    with open_ledger(ledger_url) as store:
        assert store.sessions() == ["one"]
