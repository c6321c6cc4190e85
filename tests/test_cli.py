"""The ``ctxbudget`` command, driven through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import main
from ctxbudget.cli.demo import load_demo_request


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def body_path(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(load_demo_request()), "utf-8")
    return path


def test_demo_runs_all_three_parts(runner: CliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    result = runner.invoke(main, ["demo", "--ledger", url])
    assert result.exit_code == 0, result.output
    for part in ("Meter a request by segment", "Enforce a budget", "Replay a session"):
        assert part in result.output
    assert "refused (budget_exceeded)" in result.output
    assert "demo-1" in result.output
    again = runner.invoke(main, ["demo", "--ledger", url])
    assert "demo-2" in again.output  # a second run adds a session, it never rewrites one


def test_count_with_seed_counters(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("你好世界 hello", "utf-8")
    result = runner.invoke(main, ["count", str(path), "--counter", "cjk", "--counter", "chars4"])
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()
    assert header == "input\tchars\tcjk\tchars4"
    assert row.split("\t")[1:] == ["10", "7", "3"]


def test_meter_shows_segments(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["meter", str(body_path), "--window", "8000", "--counter", "cjk"])
    assert result.exit_code == 0, result.output
    for segment in ("system", "tools", "conversation", "pending"):
        assert segment in result.output
    assert "pressure: normal" in result.output


def test_enforce_prints_the_body_to_send(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(
        main, ["enforce", str(body_path), "--budget", "1600", "--counter", "cjk"]
    )
    assert result.exit_code == 0, result.output
    sent = json.loads(result.stdout)
    assert sent["model"] == "gpt-4o-mini"
    assert "stages: turn_trim" in result.stderr


def test_enforce_refusal_exits_2_with_one_clear_line(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["enforce", str(body_path), "--budget", "50", "--counter", "cjk"])
    assert result.exit_code == 2
    assert result.stderr.count("budget_exceeded") == 1
    assert "Traceback" not in result.output


def test_bad_json_is_a_clear_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", "utf-8")
    result = runner.invoke(main, ["meter", str(path)])
    assert result.exit_code == 1
    assert "is not valid JSON" in result.stderr
    assert "Traceback" not in result.output


def test_missing_file_is_a_clear_error(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["meter", str(tmp_path / "nope.json")])
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


def test_ledger_append_events_and_measure(runner: CliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    events = tmp_path / "events.jsonl"
    user = {
        "type": "user/message",
        "data": {"content": [{"type": "text", "text": "first"}], "source": {"kind": "user"}},
        "surface_op": "append",
    }
    events.write_text(json.dumps(user) + "\n" + json.dumps(user) + "\n", "utf-8")
    appended = runner.invoke(main, ["ledger", "append", "s1", str(events), "--ledger", url])
    assert appended.exit_code == 0, appended.output
    assert "appended 2 events" in appended.output
    listed = runner.invoke(main, ["ledger", "sessions", "--ledger", url])
    assert "s1\t2 events" in listed.output
    dumped = runner.invoke(main, ["ledger", "events", "s1", "--ledger", url])
    assert [json.loads(line)["seq"] for line in dumped.output.splitlines()] == [0, 1]
    measured = runner.invoke(
        main, ["measure", "s1", "--ledger", url, "--counter", "chars4", "--window", "100"]
    )
    assert measured.exit_code == 0, measured.output
    assert "estimated 20" in measured.output


def test_stale_expected_revision_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.sqlite3'}"
    events = tmp_path / "events.json"
    events.write_text(json.dumps([{"type": "turn/start", "data": {"turn": 1}}]), "utf-8")
    args = ["ledger", "append", "s", str(events), "--ledger", url, "--expected-revision", "3"]
    result = runner.invoke(main, args)
    assert result.exit_code == 1
    assert "[conflict]" in result.stderr


def test_enforce_archives_originals_that_can_be_shown(runner: CliRunner, tmp_path: Path) -> None:
    messages: list[dict[str, object]] = [{"role": "system", "content": "be brief"}]
    for n in range(6):
        call = {"id": f"c{n}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        messages += [
            {"role": "user", "content": f"step {n}"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": f"output {n} " + "z" * 3000},
            {"role": "assistant", "content": "ok"},
        ]
    messages.append({"role": "user", "content": "next?"})
    path = tmp_path / "body.json"
    path.write_text(json.dumps({"model": "gpt-4o", "messages": messages}), "utf-8")
    archive = tmp_path / "originals"
    args = ["enforce", str(path), "--budget", "900", "--counter", "cjk", "--archive", str(archive)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    sent = json.loads(result.stdout)
    stub = next(
        m["content"] for m in sent["messages"] if str(m["content"]).startswith("[tool_echo")
    )
    handle = stub.rsplit(" ", 1)[-1].rstrip("]")
    shown = runner.invoke(main, ["archive", handle, "--dir", str(archive)])
    assert shown.exit_code == 0, shown.output
    assert "output 0 zzz" in shown.stdout
