"""A real agent through the proxy: aider runs one task against the stub provider.

aider (``pip install aider-chat``, best in a venv of its own: it pins many
packages) talks to an OpenAI-compatible API at ``OPENAI_API_BASE``. Here that is
``ctxbudget serve``'s app on 127.0.0.1 in front of the stub provider
(``ctxbudget.testing.provider``), so nothing leaves the machine. The script
checks that aider finished, that its calls reached the stub through the proxy,
and that the proxy logged them into a session it can measure; it prints what the
proxy saw.

Run: .venv/bin/python benchmarks/agent_aider.py [--aider PATH] [--stream|--no-stream]
(set up aider once: python3 -m venv /tmp/aider-venv &&
/tmp/aider-venv/bin/pip install aider-chat; then --aider /tmp/aider-venv/bin/aider)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from ctxbudget.enforce import BudgetConfig
from ctxbudget.server import ServerSettings, create_app
from ctxbudget.testing.provider import StubProvider, serve_in_thread


def aider_home(root: Path) -> dict[str, str]:
    """A HOME where aider finds its model-price cache already, so it fetches nothing."""
    caches = root / ".aider" / "caches"
    caches.mkdir(parents=True)
    (caches / "model_prices_and_context_window.json").write_text("{}")
    return {"HOME": str(root), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aider", default=shutil.which("aider") or "aider")
    parser.add_argument("--stream", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    stub = StubProvider()
    with tempfile.TemporaryDirectory() as tmp, serve_in_thread(stub.app()) as stub_url:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        settings = ServerSettings(
            upstreams={"openai": stub_url + "/v1"},
            ledger_url=f"sqlite:///{root}/ledger.sqlite",
            budget=BudgetConfig(max_input_tokens=100_000),
        )
        with serve_in_thread(create_app(settings)) as proxy:
            env = {
                **os.environ,
                **aider_home(root),
                "OPENAI_API_KEY": "sk-aider-through-ctxbudget",
                "OPENAI_API_BASE": proxy + "/v1",  # the one line an agent changes
            }
            command = [
                args.aider,
                "--model",
                "openai/stub-model",
                "--message",
                "Fix add() in calc.py",
                "--yes-always",
                "--no-git",
                "--no-auto-commits",
                "--no-check-update",
                "--analytics-disable",
                "--no-show-model-warnings",
                "--no-pretty",
                "--stream" if args.stream else "--no-stream",
                "calc.py",
            ]
            started = time.monotonic()
            ran = subprocess.run(
                command, cwd=work, env=env, capture_output=True, text=True, timeout=300
            )
            elapsed = time.monotonic() - started
            sessions = httpx.get(proxy + "/sessions").json()["sessions"]
            logged = [httpx.get(f"{proxy}/sessions/{s}").json() for s in sessions]
    print(f"aider exit {ran.returncode} after {elapsed:.1f} s; {len(stub.calls)} call(s) upstream")
    for session in logged:
        measured = session["measurement"]
        kinds = [e["type"] for e in session["history"]]
        answers = [e for e in session["history"] if e["type"] == "assistant/message"]
        print(
            f"session {session['session_id']}: {len(kinds)} events, next request about "
            f"{measured['total_tokens']} tokens ({measured['baseline']['kind']} baseline); "
            f"last answer {json.dumps(answers[-1]['data']['content'])[:80]}"
        )
    ok = ran.returncode == 0 and stub.calls and logged and "stub answer" in ran.stdout
    if not ok:
        print(ran.stdout[-2000:], ran.stderr[-2000:], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
