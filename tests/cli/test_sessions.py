"""``ctxbudget session list | measure | history`` and the raw ``ledger`` commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from ctxbudget.ledger import open_ledger
from ctxbudget.meter import TokenMeter


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def _call(step: int, text: str, usage: dict[str, int] | None) -> list[dict[str, Any]]:
    data: dict[str, Any] = {"turn": 1, "step": step, "content": _text(text)}
    if usage is not None:
        data["usage"] = usage
    return [
        {"type": "step/start", "data": {"turn": 1, "step": step}},
        {"type": "assistant/message", "data": data, "surface_op": "append"},
        {"type": "step/end", "data": {"turn": 1, "step": step}},
    ]


def _user(text: str) -> dict[str, Any]:
    return {
        "type": "user/message",
        "data": {"content": _text(text), "source": {"kind": "user"}},
        "surface_op": "append",
    }


def session_events() -> list[dict[str, Any]]:
    """Three calls with usage, a user message between each."""
    header = {"config": {"provider": "openai", "model": "m"}, "system": "be brief", "tools": []}
    events: list[dict[str, Any]] = [
        {"type": "request/header", "data": {"header": header, "reason": "initial"}},
        {"type": "turn/start", "data": {"turn": 1}},
        _user("the quick brown fox " * 20),
    ]
    events += _call(1, "first answer", {"input_tokens": 130, "output_tokens": 5})
    events.append(_user("jumps over the lazy dog " * 40))
    events += _call(2, "second answer", {"input_tokens": 340, "output_tokens": 6})
    events.append(_user("and runs away " * 30))
    events += _call(3, "third answer", None)
    return events


def _fill(url: str, session: str = "s1") -> None:
    with open_ledger(url) as store:
        store.append_many(session, session_events(), expected_revision=0)


def test_list_shows_sessions_and_event_counts(runner: CliRunner, ledger_url: str) -> None:
    _fill(ledger_url, "alpha")
    _fill(ledger_url, "beta")
    result = runner.invoke(main, ["session", "list", "--ledger", ledger_url])
    assert result.exit_code == 0, result.output
    n = len(session_events())
    assert result.stdout.splitlines() == [f"alpha\t{n} events", f"beta\t{n} events"]
    legacy = runner.invoke(main, ["ledger", "sessions", "--ledger", ledger_url])
    assert legacy.stdout == result.stdout


def test_ledger_env_var_sets_the_ledger(
    runner: CliRunner, ledger_url: str, monkeypatch: Any
) -> None:
    _fill(ledger_url, "from-env")
    monkeypatch.setenv("CTXBUDGET_LEDGER", ledger_url)
    assert "from-env" in runner.invoke(main, ["session", "list"]).stdout


def test_measure_shows_the_meters_answer(runner: CliRunner, ledger_url: str) -> None:
    _fill(ledger_url)
    result = runner.invoke(
        main, ["session", "measure", "s1", "--ledger", ledger_url, "--window", "1000"]
    )
    assert result.exit_code == 0, result.output
    with open_ledger(ledger_url) as store:
        expected = TokenMeter(store, context_window=1000).measure("s1")
    assert f"{expected.baseline.kind} {expected.baseline.tokens:,}:" in result.stdout
    assert f"{expected.total_tokens:,} tokens" in result.stdout
    alias = runner.invoke(main, ["measure", "s1", "--ledger", ledger_url, "--window", "1000"])
    assert alias.stdout == result.stdout


def test_measure_json_is_the_meters_measurement(runner: CliRunner, ledger_url: str) -> None:
    _fill(ledger_url)
    args = ["session", "measure", "s1", "--ledger", ledger_url, "--window", "1000", "--json"]
    shown = json.loads(runner.invoke(main, args).stdout)
    with open_ledger(ledger_url) as store:
        expected = TokenMeter(store, context_window=1000).measure("s1")
    assert shown["total_tokens"] == expected.total_tokens
    assert shown["log_revision"] == expected.log_revision == len(session_events())
    assert shown["baseline"] == {"kind": expected.baseline.kind, "tokens": expected.baseline.tokens}
    assert shown["pressure"] == str(expected.pressure)


def test_an_unknown_session_is_an_error_naming_it(runner: CliRunner, ledger_url: str) -> None:
    result = runner.invoke(main, ["session", "history", "nope", "--ledger", ledger_url])
    assert result.exit_code == ExitCode.ERROR
    assert "no session 'nope'" in result.stderr


def test_history_json_is_the_meters_history(runner: CliRunner, ledger_url: str) -> None:
    """The CLI adds nothing: each call is TokenMeter.history's prediction and report."""
    _fill(ledger_url)
    args = ["session", "history", "s1", "--ledger", ledger_url, "--window", "2000", "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    with open_ledger(ledger_url) as store:
        calls = TokenMeter(store, context_window=2000).history("s1")
    assert [c["seq"] for c in shown] == [c.seq for c in calls]
    assert [c["predicted_tokens"] for c in shown] == [c.predicted_tokens for c in calls]
    assert [c["reported_tokens"] for c in shown] == [130, 340, None]
    assert [c["anchored"] for c in shown] == [c.anchored for c in calls]


def test_history_chart_shows_prediction_beside_report(runner: CliRunner, ledger_url: str) -> None:
    _fill(ledger_url)
    result = runner.invoke(
        main, ["session", "history", "s1", "--ledger", ledger_url, "--window", "2000"]
    )
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()]
    rows = [row for row in rows if row and row[0].isdigit()]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    assert rows[0][3] == "130"
    assert rows[1][3] == "340"
    assert rows[2][3] == "-"
    assert "over 1 anchored calls" in result.stdout


def test_ledger_append_and_events_round_trip(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text("\n".join(json.dumps(e) for e in session_events()) + "\n", "utf-8")
    appended = runner.invoke(main, ["ledger", "append", "s", str(events), "--ledger", ledger_url])
    assert appended.exit_code == 0, appended.output
    assert f"appended {len(session_events())} events" in appended.stdout
    dumped = runner.invoke(main, ["ledger", "events", "s", "--ledger", ledger_url])
    lines = [json.loads(line) for line in dumped.stdout.splitlines()]
    assert [e["type"] for e in lines] == [e["type"] for e in session_events()]


def test_a_stale_expected_revision_is_a_conflict(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    events = tmp_path / "events.json"
    events.write_text(json.dumps([{"type": "turn/start", "data": {"turn": 1}}]), "utf-8")
    args = ["ledger", "append", "s", str(events), "--ledger", ledger_url]
    result = runner.invoke(main, [*args, "--expected-revision", "3"])
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith("ctxbudget: error [conflict]")
