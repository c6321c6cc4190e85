"""The ``ctxbudget`` command as a user gets it: installed from a wheel into a fresh venv.

How it stays fast, and why that is still honest: the wheel is built once per test
session from this worktree with the dev environment's hatchling
(``--no-build-isolation``, so no build environment is set up), and installed with
its declared dependencies into ``python -m venv --without-pip`` by the dev
environment's pip (``pip --python``), from pip's local cache or PyPI. Nothing of
the dev environment is visible to the new one: a dependency missing from
``pyproject.toml``, a module left out of the wheel or an import of a dev-only
package fails here. The commands then run as real subprocesses from a directory
outside the worktree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.cli.claude_log import SESSION_ID, write_claude_code_log

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _pip(*args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` directory of a fresh venv holding ctxbudget and only its dependencies."""
    base = tmp_path_factory.mktemp("installed")
    wheels, env = base / "wheels", base / "venv"
    _pip("wheel", "--no-deps", "--no-build-isolation", "-w", str(wheels), str(ROOT))
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    _pip("--python", str(python), "install", *map(str, wheels.glob("ctxbudget-*.whl")))
    return env / "bin"


def _run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("CTXBUDGET_")}
    environment["PATH"] = f"{bin_dir}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "100"
    return subprocess.run(
        [str(bin_dir / "ctxbudget"), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_installed_package_is_the_wheel_not_the_worktree(
    installed: Path, tmp_path: Path
) -> None:
    shown = subprocess.run(
        [str(installed / "python"), "-c", "import ctxbudget; print(ctxbudget.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.startswith(str(installed.parent))


def test_demo_runs_from_a_fresh_install_with_the_default_ledger(
    installed: Path, tmp_path: Path
) -> None:
    """The README's first command: no set-up, no network, the embedded SQLite ledger."""
    result = _run(installed, tmp_path, "demo")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "[budget_exceeded]" in result.stdout
    assert "as /context shows it" in result.stdout
    assert (tmp_path / ".ctxbudget" / "ledger.sqlite3").is_file()
    history = _run(installed, tmp_path, "session", "history", "demo-1", "--window", "8192")
    assert history.returncode == 0, history.stderr
    assert "anchored calls" in history.stdout


def test_a_refusal_exits_3_from_a_fresh_install(installed: Path, tmp_path: Path) -> None:
    body = tmp_path / "body.json"
    body.write_text('{"model": "m", "messages": [{"role": "user", "content": "hello there"}]}')
    result = _run(installed, tmp_path, "fit", str(body), "--max-input", "1")
    assert result.returncode == 3
    assert result.stderr.startswith("ctxbudget: error [budget_exceeded]: ")
    assert "Traceback" not in result.stderr


def test_a_claude_code_log_imports_from_a_fresh_install(installed: Path, tmp_path: Path) -> None:
    log = write_claude_code_log(tmp_path)
    imported = _run(installed, tmp_path, "session", "import", str(log))
    assert imported.returncode == 0, imported.stderr
    assert f"imported claude-code session {SESSION_ID}" in imported.stdout
    history = _run(installed, tmp_path, "session", "history", SESSION_ID, "--json")
    assert history.returncode == 0, history.stderr
    assert '"reported_tokens": 9000' in history.stdout
