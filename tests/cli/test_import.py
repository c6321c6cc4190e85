"""``ctxbudget session import``: agent transcripts into the ledger, usage included, one error
line per file it cannot read while the others are still imported."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from ctxbudget.errors import TranscriptError
from ctxbudget.ledger import open_ledger
from ctxbudget.transcripts import read_transcript
from tests.cli.claude_log import SESSION_ID, claude_code_records, write_claude_code_log

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "transcripts"
POOLED_P95 = 1.5  # % , the meter's documented error (docs/meter.md, "How accurate")
AGENT_P95 = 3.0  # %, for every agent with at least 50 scored calls


def _import(runner: CliRunner, ledger_url: str, *paths: Path | str) -> tuple[int, str, str]:
    result = runner.invoke(main, ["session", "import", *map(str, paths), "--ledger", ledger_url])
    return result.exit_code, result.stdout, result.stderr


def _history(runner: CliRunner, ledger_url: str, session_id: str) -> list[dict[str, object]]:
    args = ["session", "history", session_id, "--ledger", ledger_url, "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    calls: list[dict[str, object]] = json.loads(result.stdout)
    return calls


def test_a_claude_code_log_imports_with_its_usage(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    """One response spread over several lines is one call; the prompt the history reports
    is input + cache read + cache write (Claude Code's input_tokens excludes the cache)."""
    path = write_claude_code_log(tmp_path, calls=4)
    status, out, err = _import(runner, ledger_url, path)
    assert status == 0, err
    assert out.strip() == (
        f"imported claude-code session {SESSION_ID}: 18 events, 4 calls with usage"
    )
    calls = _history(runner, ledger_url, SESSION_ID)
    usages = {
        r["message"]["id"]: r["message"]["usage"]
        for r in claude_code_records(4)
        if r["type"] == "assistant"
    }
    expected = [
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        for u in usages.values()
    ]
    assert [c["reported_tokens"] for c in calls] == expected


def test_a_bad_file_is_one_line_naming_it_and_the_line_while_others_import(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"type": "user", "sessionId": "x"}\nnot json at all\n', "utf-8")
    missing = tmp_path / "gone.jsonl"
    good = write_claude_code_log(tmp_path)
    status, out, err = _import(runner, ledger_url, bad, missing, good)
    assert status == ExitCode.ERROR
    errors = [line for line in err.splitlines() if line.startswith("ctxbudget: error")]
    assert len(errors) == 2, err
    assert errors[0].startswith(f"ctxbudget: error [transcript_invalid]: {bad}:2: ")
    assert str(missing) in errors[1]
    assert "2 of 3 files could not be imported" in err
    assert "Traceback" not in err
    with open_ledger(ledger_url) as store:
        assert store.sessions() == [SESSION_ID]
    assert "imported claude-code session" in out


def test_importing_twice_skips_what_is_there(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    path = write_claude_code_log(tmp_path)
    assert _import(runner, ledger_url, path)[0] == 0
    status, out, _ = _import(runner, ledger_url, path)
    assert status == 0
    assert f"skipped {SESSION_ID}: already in the ledger (18 events)" in out
    with open_ledger(ledger_url) as store:
        assert store.revision(SESSION_ID) == 18


def test_a_chat_body_needs_its_format_named(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}), "utf-8")
    status, _, err = _import(runner, ledger_url, path)
    assert status == ExitCode.ERROR
    assert "openai" in err
    assert "anthropic" in err
    args = ["session", "import", str(path), "--format", "openai", "--ledger", ledger_url]
    named = runner.invoke(main, args)
    assert named.exit_code == 0, named.output


def _corpus_files() -> tuple[list[Path], dict[str, str]]:
    """The transcripts with usage, and the agent of each session they hold."""
    files, agents = [], {}
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        try:
            sessions = read_transcript(path)
        except TranscriptError:
            continue  # a format no importer covers (SpecStory, aider, ShareGPT, ...)
        if any(s.calls_with_usage for s in sessions):
            files.append(path)
            agents.update({s.session_id: s.agent for s in sessions})
    return files, agents


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS}")
def test_corpus_history_after_import_is_within_the_meters_documented_error(
    runner: CliRunner, ledger_url: str
) -> None:
    """Every transcript with usage in ../shared goes through `session import`; then
    `session history` shows each anchored prediction within docs/meter.md's error."""
    files, agents = _corpus_files()
    assert files, f"no transcript with usage under {CORPUS}"
    status, _, err = _import(runner, ledger_url, *files)
    assert status == 0, err
    with open_ledger(ledger_url) as store:
        sessions = store.sessions()
    by_agent: defaultdict[str, list[float]] = defaultdict(list)
    for session_id in sessions:
        agent = agents[session_id]
        for call in _history(runner, ledger_url, session_id):
            if call["anchored"] and call["error"] is not None:
                by_agent[agent].append(100 * float(str(call["error"])))
    pooled = [e for errors in by_agent.values() for e in errors]
    assert len(pooled) >= 500
    assert statistics.quantiles(pooled, n=100, method="inclusive")[94] <= POOLED_P95
    for errors in by_agent.values():
        if len(errors) >= 50:
            assert statistics.quantiles(errors, n=100, method="inclusive")[94] <= AGENT_P95


FIXTURES = Path(__file__).resolve().parents[1] / "transcripts" / "fixtures"


@pytest.mark.parametrize("fixture", sorted(FIXTURES.iterdir()), ids=lambda p: p.name)
def test_every_transcript_format_imports_through_the_cli(
    runner: CliRunner, ledger_url: str, fixture: Path
) -> None:
    """Claude Code logs and stream-json (with sidechains), Codex rollouts, OpenHands, OpenAI
    and Anthropic JSON: auto-detected, each session of the file in the ledger, usage kept."""
    status, out, err = _import(runner, ledger_url, fixture)
    assert status == 0, err
    expected = read_transcript(fixture)
    with open_ledger(ledger_url) as store:
        assert sorted(store.sessions()) == sorted(s.session_id for s in expected)
    for imported in expected:
        assert f"imported {imported.agent} session {imported.session_id}:" in out
        reported = [c["reported_tokens"] for c in _history(runner, ledger_url, imported.session_id)]
        assert sum(r is not None for r in reported) == imported.calls_with_usage


def test_the_progress_bar_renders_on_stderr_and_leaves_json_output_whole(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    """--progress always draws the bar (on standard error) even off a terminal; standard
    output is still exactly the --json document."""
    path = write_claude_code_log(tmp_path, calls=3)
    args = ["session", "import", str(path), "--ledger", ledger_url, "--progress", "always"]
    result = runner.invoke(main, [*args, "--json"])
    assert result.exit_code == ExitCode.DONE, result.output
    assert "importing" in result.stderr
    assert "kB" in result.stderr  # the bar's size column
    (record,) = json.loads(result.stdout)
    assert record == {
        "file": str(path),
        "session_id": SESSION_ID,
        "agent": "claude-code",
        "status": "imported",
        "events": 14,
        "calls_with_usage": 3,
    }
    again = json.loads(runner.invoke(main, [*args, "--json"]).stdout)
    assert [(r["status"], r["events"]) for r in again] == [("skipped", 14)]


def test_no_progress_bar_off_a_terminal_unless_asked(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    path = write_claude_code_log(tmp_path, calls=3)
    for mode in ("auto", "never"):
        args = ["session", "import", str(path), "--ledger", ledger_url, "--progress", mode]
        result = runner.invoke(main, args)
        assert result.exit_code == ExitCode.DONE, result.output
        assert result.stderr == ""
