"""``ctxbudget serve`` that cannot start is one error line and exit 1, never a worker's
traceback or uvicorn's status 3 (which here means "refused")."""

from __future__ import annotations

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

    monkeypatch.setattr(uvicorn, "run", cannot_bind)
    result = CliRunner().invoke(main, ["serve", "--ledger", "memory://", "--port", "1"])
    assert result.exit_code == ExitCode.ERROR, result.output
