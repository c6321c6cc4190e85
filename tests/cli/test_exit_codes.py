"""Every failure is one line with the error's code and a documented exit status, never a
traceback (issue 11 item 4, issue 12)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from ctxbudget.cli import ExitCode, main
from ctxbudget.cli.app import DEBUG_ENV


def assert_one_error_line(result: Result, code: str, status: ExitCode) -> str:
    """The run failed with ``status`` and said so in exactly one line naming ``code``."""
    assert result.exit_code == status, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"ctxbudget: error [{code}]: "), lines[0]
    return lines[0]


def test_exit_codes_have_the_documented_values() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3]
    assert [c.name for c in ExitCode] == ["DONE", "ERROR", "USAGE", "REFUSED"]


def test_bad_json_names_the_file_and_the_spot(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"model": "x",\n "messages": [}', "utf-8")
    line = assert_one_error_line(
        runner.invoke(main, ["context", str(path)]), "format_error", ExitCode.ERROR
    )
    assert "broken.json" in line
    assert "line 2" in line


def test_a_missing_file_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["fit", str(tmp_path / "nope.json"), "--max-input", "100"])
    line = assert_one_error_line(result, "input_unreadable", ExitCode.ERROR)
    assert "nope.json" in line


def test_a_directory_given_as_a_file_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["count", str(tmp_path)])
    assert "is a directory" in assert_one_error_line(result, "input_unreadable", ExitCode.ERROR)


def test_a_file_that_is_not_utf8_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    result = runner.invoke(main, ["count", str(path)])
    assert "not UTF-8" in assert_one_error_line(result, "input_unreadable", ExitCode.ERROR)


def test_a_file_given_as_archive_dir_is_one_line(
    runner: CliRunner, body_path: Path, tmp_path: Path
) -> None:
    not_a_dir = tmp_path / "archive.txt"
    not_a_dir.write_text("", "utf-8")
    args = ["fit", str(body_path), "--max-input", "900", "--archive", str(not_a_dir)]
    line = assert_one_error_line(runner.invoke(main, args), "config_invalid", ExitCode.ERROR)
    assert "is a file, not a directory" in line


def test_an_unreachable_ledger_is_one_line(runner: CliRunner) -> None:
    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    result = runner.invoke(main, ["session", "list", "--ledger", url])
    assert result.exit_code == ExitCode.ERROR, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith("ctxbudget: error [store_")


def test_an_unknown_ledger_scheme_is_one_line(runner: CliRunner) -> None:
    result = runner.invoke(main, ["session", "list", "--ledger", "redis://localhost"])
    assert "unknown ledger URL" in assert_one_error_line(result, "config_invalid", ExitCode.ERROR)


def test_an_unknown_counter_is_one_line(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["context", str(body_path), "--counter", "nonsense"])
    assert_one_error_line(result, "unknown_counter", ExitCode.ERROR)


def test_a_body_that_is_not_an_object_is_a_format_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[1, 2]", "utf-8")
    line = assert_one_error_line(
        runner.invoke(main, ["context", str(path)]), "format_error", ExitCode.ERROR
    )
    assert "not a request object" in line


def test_bad_usage_exits_2(runner: CliRunner, body_path: Path) -> None:
    assert runner.invoke(main, ["context"]).exit_code == ExitCode.USAGE
    assert runner.invoke(main, ["no-such-command"]).exit_code == ExitCode.USAGE
    unknown_format = runner.invoke(main, ["context", str(body_path), "--format", "gemini"])
    assert unknown_format.exit_code == ExitCode.USAGE
    no_budget = runner.invoke(main, ["fit", str(body_path)])
    assert no_budget.exit_code == ExitCode.USAGE
    assert "--max-input" in no_budget.output


def test_a_refusal_exits_3_with_one_line(runner: CliRunner, body_path: Path) -> None:
    result = runner.invoke(main, ["fit", str(body_path), "--max-input", "20"])
    line = assert_one_error_line(result, "budget_exceeded", ExitCode.REFUSED)
    assert "over the budget of 20" in line
    assert result.stdout == ""  # nothing to send


def test_a_host_oserror_is_one_line(runner: CliRunner, body_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "missing-dir" / "out.json"
    result = runner.invoke(main, ["fit", str(body_path), "--max-input", "100000", "-o", str(out)])
    assert "cannot write" in assert_one_error_line(result, "output_unwritable", ExitCode.ERROR)


def _group_with(command: click.Command) -> click.Group:
    return type(main)("probe", commands={"probe": command})


def test_a_raw_oserror_from_a_command_is_one_line_with_its_errno(runner: CliRunner) -> None:
    @click.command()
    def probe() -> None:
        raise PermissionError(13, "Permission denied", "/root/secret")

    result = runner.invoke(_group_with(probe), ["probe"])
    line = assert_one_error_line(result, "os_error:EACCES", ExitCode.ERROR)
    assert "/root/secret" in line


def test_an_unexpected_exception_is_one_line_unless_debugging(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    @click.command()
    def probe() -> None:
        raise RuntimeError("boom")

    result = runner.invoke(_group_with(probe), ["probe"])
    assert "RuntimeError: boom" in assert_one_error_line(result, "internal_error", ExitCode.ERROR)
    monkeypatch.setenv(DEBUG_ENV, "1")
    debugged = runner.invoke(_group_with(probe), ["probe"])
    assert isinstance(debugged.exception, RuntimeError)


def test_json_nested_too_deep_is_a_format_error(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    result = runner.invoke(main, ["context", str(path)])
    assert_one_error_line(result, "format_error", ExitCode.ERROR)


def test_every_command_is_listed_in_help(runner: CliRunner) -> None:
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == ExitCode.DONE
    for name in ("demo", "count", "context", "fit", "session", "ledger", "archive", "serve"):
        assert f"  {name} " in result.output, name
    text = " ".join(result.output.split())  # as one line, however click wraps it
    assert "0 done, 1 error, 2 bad usage, 3 refused" in text
    assert "meter (context), enforce (fit), measure (session measure)" in text


def test_an_unreadable_archive_or_locator_is_one_line(runner: CliRunner, tmp_path: Path) -> None:
    empty = tmp_path / "originals"
    empty.mkdir()
    unknown = runner.invoke(main, ["archive", "ctxbudget-archive:" + "0" * 20, "--dir", str(empty)])
    assert "no original is archived" in assert_one_error_line(
        unknown, "locator_invalid", ExitCode.ERROR
    )
    crafted = runner.invoke(main, ["archive", "../../etc/passwd", "--dir", str(empty)])
    assert_one_error_line(crafted, "locator_invalid", ExitCode.ERROR)
    (empty / ("1" * 20 + ".json")).write_text("tampered", "utf-8")
    tampered = runner.invoke(
        main, ["archive", "ctxbudget-archive:" + "1" * 20, "--dir", str(empty)]
    )
    assert tampered.exit_code == ExitCode.ERROR
    assert "Traceback" not in tampered.output
    assert tampered.stderr.startswith("ctxbudget: error [archive_error]")


def test_a_multi_line_error_message_is_still_one_line(runner: CliRunner) -> None:
    """A driver's message with a newline (libpq adds a hint line) is joined, not split."""
    from ctxbudget.errors import StoreUnavailableError

    @click.command()
    def probe() -> None:
        raise StoreUnavailableError("connection refused\n\tIs the server running?")

    result = runner.invoke(_group_with(probe), ["probe"])
    line = assert_one_error_line(result, "store_unavailable", ExitCode.ERROR)
    assert line.endswith("connection refused Is the server running?")


def test_standard_input_that_is_not_utf8_is_one_line_not_a_count(runner: CliRunner) -> None:
    """Bytes that are no UTF-8 on standard input get the file's error, not a count of
    whatever the locale decoded them to."""
    result = runner.invoke(main, ["count", "-"], input=b"\xff\xfe caf\xe9")
    line = assert_one_error_line(result, "input_unreadable", ExitCode.ERROR)
    assert "standard input is not UTF-8" in line


def test_standard_input_drops_a_byte_order_mark(runner: CliRunner) -> None:
    """A UTF-8 byte order mark on standard input is not counted, as in a file."""
    with_mark = runner.invoke(main, ["count", "--counter", "chars4", "-"], input="\ufeffhello")
    without = runner.invoke(main, ["count", "--counter", "chars4", "-"], input="hello")
    assert with_mark.exit_code == 0, with_mark.output
    assert with_mark.output == without.output
