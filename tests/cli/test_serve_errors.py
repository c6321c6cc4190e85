"""``ctxbudget serve`` that cannot start is one error line and exit 1, never a worker's
traceback or uvicorn's status 3 (which here means "refused")."""

from __future__ import annotations

import os
from typing import Any

import pytest
from click.testing import CliRunner

from ctxbudget.cli import ExitCode, main

SECRET = "N0t-In-The-Output"


@pytest.mark.parametrize(
    ("url", "code"),
    [
        (f"postgresql://u:{SECRET}@127.0.0.1:1/x", "store_unavailable"),
        (f"postgresql://u:{SECRET}@[::1:1/x", "config_invalid"),
        (f"mysql://u:{SECRET}@h/x", "config_invalid"),
    ],
)
def test_a_ledger_that_cannot_open_stops_serve_before_it_starts(url: str, code: str) -> None:
    result = CliRunner().invoke(main, ["serve", "--ledger", url, "--port", "1"])
    assert result.exit_code == ExitCode.ERROR, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith(f"ctxbudget: error [{code}]: "), lines
    assert "Traceback" not in result.output
    assert SECRET not in result.output


def test_a_port_out_of_range_is_bad_usage() -> None:
    result = CliRunner().invoke(main, ["serve", "--port", "99999", "--ledger", "memory://"])
    assert result.exit_code == ExitCode.USAGE, result.output


def test_uvicorns_startup_failure_exits_1_not_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """uvicorn exits 3 when it cannot bind; 3 is the CLI's "refused", so serve says 1."""
    import uvicorn

    def cannot_bind(*args: Any, **kwargs: Any) -> None:
        raise SystemExit(3)

    from ctxbudget.server.settings import SETTINGS_VARIABLE

    monkeypatch.setattr(uvicorn, "run", cannot_bind)
    monkeypatch.setenv(SETTINGS_VARIABLE, "")  # restored after the test: serve sets it
    result = CliRunner().invoke(main, ["serve", "--ledger", "memory://", "--port", "1"])
    assert result.exit_code == ExitCode.ERROR, result.output


class _Started:
    """Stands in for uvicorn.run: records that serve got as far as starting workers."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.calls += 1


def _served_ledger(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> str | None:
    """The ledger URL serve hands its workers, uvicorn replaced by a recorder."""
    import uvicorn

    from ctxbudget.server.settings import SETTINGS_VARIABLE, settings_from_environment

    started = _Started()
    monkeypatch.setattr(uvicorn, "run", started)
    monkeypatch.setenv(SETTINGS_VARIABLE, "")  # restored after the test: serve sets it
    result = CliRunner().invoke(main, ["serve", "--port", "1", *args])
    assert result.exit_code == ExitCode.DONE, result.output
    assert started.calls == 1
    return settings_from_environment(os.environ).ledger_url


def test_serve_honours_the_ledger_environment_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """CTXBUDGET_LEDGER sets serve's ledger as it does every other command's."""
    from ctxbudget.cli.options import LEDGER_ENV

    url = f"sqlite:///{tmp_path / 'from-env.sqlite3'}"
    monkeypatch.setenv(LEDGER_ENV, url)
    assert _served_ledger(monkeypatch, []) == url


def test_the_ledger_flag_wins_over_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from ctxbudget.cli.options import LEDGER_ENV

    monkeypatch.setenv(LEDGER_ENV, f"sqlite:///{tmp_path / 'from-env.sqlite3'}")
    flag = f"sqlite:///{tmp_path / 'from-flag.sqlite3'}"
    assert _served_ledger(monkeypatch, ["--ledger", flag]) == flag


def test_a_bad_ledger_in_the_environment_stops_serve_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import uvicorn

    from ctxbudget.cli.options import LEDGER_ENV

    started = _Started()
    monkeypatch.setattr(uvicorn, "run", started)
    monkeypatch.setenv(LEDGER_ENV, "mysql://h/x")
    result = CliRunner().invoke(main, ["serve", "--port", "1"])
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr.startswith("ctxbudget: error [config_invalid]: ")
    assert started.calls == 0
