"""Bad inputs found by a fresh-eyes trial of every command: each is one error line with a
stable code (or click's usage error, exit 2), found before any work is done, and never a
silently wrong figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main
from tests.cli.test_exit_codes import assert_one_error_line

BODY = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def request_path(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(BODY), "utf-8")
    return path


def test_an_empty_request_file_says_it_is_empty(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text("", "utf-8")
    line = assert_one_error_line(
        runner.invoke(main, ["context", str(path)]), "format_error", ExitCode.ERROR
    )
    assert "is empty" in line


def test_a_utf8_byte_order_mark_is_dropped_not_parsed_or_counted(
    runner: CliRunner, tmp_path: Path
) -> None:
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_text(json.dumps(BODY), "utf-8")
    marked.write_bytes(b"\xef\xbb\xbf" + json.dumps(BODY).encode())
    shown = [
        runner.invoke(main, ["context", str(p), "--format", "openai", "--json"])
        for p in (plain, marked)
    ]
    assert [r.exit_code for r in shown] == [ExitCode.DONE, ExitCode.DONE]
    figures = [json.loads(r.stdout)["input_tokens"] for r in shown]
    assert figures[0] == figures[1]
    counted = runner.invoke(main, ["count", str(plain), str(marked)])
    rows = [line.split("\t")[1:] for line in counted.stdout.splitlines()[1:]]
    assert rows[0] == rows[1]


def test_count_prints_nothing_when_one_of_its_files_is_bad(
    runner: CliRunner, request_path: Path, tmp_path: Path
) -> None:
    result = runner.invoke(main, ["count", str(request_path), str(tmp_path / "nope.txt")])
    assert_one_error_line(result, "input_unreadable", ExitCode.ERROR)
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["fit", "REQ", "--max-input", "999999999999"],
        ["serve", "--max-input", "-5", "--ledger", "memory://", "--port", "1"],
        ["demo", "--ledger", "memory://", "--window", "999999999999"],
    ],
    ids=["fit --max-input huge", "serve --max-input negative", "demo --window huge"],
)
def test_a_budget_out_of_range_is_bad_usage_naming_the_option(
    runner: CliRunner, request_path: Path, args: list[str]
) -> None:
    result = runner.invoke(main, [str(request_path) if a == "REQ" else a for a in args])
    assert result.exit_code == ExitCode.USAGE, result.output
    assert "BudgetConfig" not in result.output
    assert "is not in the range" in result.stderr


@pytest.mark.parametrize(
    ("content", "code", "said"),
    [
        (None, "input_unreadable", "cannot read"),
        (b"\xff\xfe\x00garbage", "input_unreadable", "not UTF-8"),
        (b"x = [", "config_invalid", "not valid TOML"),
    ],
    ids=["missing", "binary", "broken TOML"],
)
@pytest.mark.parametrize("command", ["fit", "serve"])
def test_a_bad_config_file_is_one_line_naming_the_option(
    runner: CliRunner,
    request_path: Path,
    tmp_path: Path,
    command: str,
    content: bytes | None,
    code: str,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)  # never start a server here
    config = tmp_path / "agent.toml"
    if content is not None:
        config.write_bytes(content)
    args = {
        "fit": ["fit", str(request_path), "--config", str(config)],
        "serve": ["serve", "--config", str(config), "--ledger", "memory://", "--port", "1"],
    }[command]
    line = assert_one_error_line(runner.invoke(main, args), code, ExitCode.ERROR)
    assert "--config" in line
    assert said in line


def test_demo_checks_its_save_path_before_it_runs(runner: CliRunner, tmp_path: Path) -> None:
    for target in (tmp_path / "no-dir" / "last.json", tmp_path):
        args = ["demo", "--ledger", "memory://", "--save-request", str(target)]
        result = runner.invoke(main, args)
        assert_one_error_line(result, "output_unwritable", ExitCode.ERROR)
        assert result.stdout == ""  # refused before the session was played


def test_ledger_append_of_nothing_reports_the_sessions_real_revision(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    events, empty = tmp_path / "events.jsonl", tmp_path / "empty.jsonl"
    events.write_text(json.dumps({"type": "turn/start", "data": {"turn": 1}}) + "\n", "utf-8")
    empty.write_text("", "utf-8")
    first = runner.invoke(main, ["ledger", "append", "s", str(events), "--ledger", ledger_url])
    assert first.exit_code == ExitCode.DONE, first.output
    again = runner.invoke(main, ["ledger", "append", "s", str(empty), "--ledger", ledger_url])
    assert again.exit_code == ExitCode.DONE, again.output
    assert again.stdout.strip() == "appended 0 events to 's'; revision 1"


def test_compact_refuses_a_file_as_its_archive_directory(
    runner: CliRunner, ledger_url: str, request_path: Path
) -> None:
    runner.invoke(main, ["demo", "--ledger", ledger_url])
    args = ["session", "compact", "demo-1", "--ledger", ledger_url, "--archive", str(request_path)]
    line = assert_one_error_line(runner.invoke(main, args), "config_invalid", ExitCode.ERROR)
    assert "--archive" in line


def test_compact_names_its_options_when_the_kept_tail_is_too_long(
    runner: CliRunner, ledger_url: str
) -> None:
    args = ["session", "compact", "any", "--ledger", ledger_url, "--window", "8192"]
    result = runner.invoke(main, [*args, "--retain", "99999999"])
    assert result.exit_code == ExitCode.USAGE
    assert "--retain 99,999,999 must be less than the compaction threshold of 6,553" in (
        result.stderr
    )
    assert "threshold_ratio" not in result.stderr


def test_import_reports_a_missing_file_or_a_directory_as_other_commands_do(
    runner: CliRunner, ledger_url: str, tmp_path: Path
) -> None:
    missing, directory = tmp_path / "nope.jsonl", tmp_path / "logs"
    directory.mkdir()
    result = runner.invoke(
        main, ["session", "import", str(missing), str(directory), "--ledger", ledger_url]
    )
    assert result.exit_code == ExitCode.ERROR
    errors = [line for line in result.stderr.splitlines() if line.startswith("ctxbudget: error")]
    assert [line.split("]")[0] for line in errors] == ["ctxbudget: error [input_unreadable"] * 2
    assert "no such file" in errors[0]
    assert "is a directory" in errors[1]
    assert "2 of 2 files could not be imported" in result.stderr


@pytest.mark.parametrize(
    ("command", "default"),
    [(["session", "measure"], "calibrated:central"), (["context"], "guard counter")],
)
def test_counter_help_names_the_default_each_command_really_uses(
    runner: CliRunner, command: list[str], default: str
) -> None:
    """The meter defaults to the central counter, budgets to the guard: the help says which."""
    result = runner.invoke(main, [*command, "--help"])
    assert default in " ".join(result.stdout.split())


@pytest.mark.parametrize("limit", [-5, 1.5, "1024", True])
def test_an_output_limit_that_is_no_positive_integer_is_said_not_silently_dropped(
    runner: CliRunner, tmp_path: Path, limit: object
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**BODY, "max_tokens": limit}), "utf-8")
    args = ["context", str(path), "--format", "openai", "--window", "1000", "--json"]
    result = runner.invoke(main, args)
    assert result.exit_code == ExitCode.DONE, result.output
    assert f"max_tokens ({json.dumps(limit)}) is not a positive integer" in result.stderr
    assert json.loads(result.stdout)["output_reserve"] == 0


def test_fit_reports_the_budget_it_held_the_request_to(runner: CliRunner, tmp_path: Path) -> None:
    """With --model, a budget above the model's input cap is held to the cap; the report
    gives that figure, not the configured one it did not use."""
    from ctxbudget.models import model_info

    window = model_info("gpt-4o-mini").context_window
    assert window is not None
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**BODY, "max_tokens": 1000}), "utf-8")
    args = [
        "fit",
        str(path),
        "--format",
        "openai",
        "--max-input",
        "100000000",
        "--model",
        "gpt-4o-mini",
    ]
    result = runner.invoke(main, args)
    assert result.exit_code == ExitCode.DONE, result.output
    assert f"(budget {window - 1000:,}: the input cap of gpt-4o-mini" in result.stderr
    args = ["fit", str(path), "--format", "openai", "--max-input", "5000", "--model", "gpt-4o-mini"]
    within = runner.invoke(main, args)
    assert "(budget 5,000)" in within.stderr
