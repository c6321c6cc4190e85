"""A real agent through the proxy: Claude Code runs one task against the stub provider.

Claude Code (``npm install @anthropic-ai/claude-code``, from the npm registry) talks to
the Anthropic Messages API at ``ANTHROPIC_BASE_URL``. Here that is ``ctxbudget serve``'s
app on 127.0.0.1 in front of the stub provider (``ctxbudget.testing.provider``), with
Claude Code's non-essential traffic (telemetry, update checks) switched off, so nothing
leaves the machine. The script checks that Claude Code finished, that its calls reached
the stub through the proxy, and that the proxy logged them into sessions it can measure;
it prints what the proxy saw.

Run: .venv/bin/python benchmarks/agent_claude_code.py [--claude PATH]
(set up Claude Code once: mkdir /tmp/cc && cd /tmp/cc &&
npm install @anthropic-ai/claude-code; then --claude /tmp/cc/node_modules/.bin/claude)
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


def claude_environment(home: Path, proxy: str) -> dict[str, str]:
    """Claude Code pointed at the proxy, in a HOME of its own, with nothing else to call."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": proxy,  # the one line an agent changes
        "ANTHROPIC_API_KEY": "sk-ant-claude-code-through-ctxbudget",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claude", default=shutil.which("claude") or "claude")
    parser.add_argument("--model", default="claude-sonnet-4-5")
    args = parser.parse_args()
    stub = StubProvider()
    with tempfile.TemporaryDirectory() as tmp, serve_in_thread(stub.app()) as stub_url:
        root = Path(tmp)
        work, home = root / "work", root / "home"
        work.mkdir()
        home.mkdir()
        (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        settings = ServerSettings(
            upstreams={"anthropic": stub_url},
            ledger_url=f"sqlite:///{root}/ledger.sqlite",
            budget=BudgetConfig(max_input_tokens=150_000),
        )
        with serve_in_thread(create_app(settings)) as proxy:
            command = [
                args.claude,
                "-p",
                "Say what add() in calc.py does.",
                "--model",
                args.model,
                "--output-format",
                "json",
            ]
            started = time.monotonic()
            ran = subprocess.run(
                command,
                cwd=work,
                env=claude_environment(home, proxy),
                capture_output=True,
                text=True,
                timeout=300,
            )
            elapsed = time.monotonic() - started
            sessions = httpx.get(proxy + "/sessions").json()["sessions"]
            logged = [httpx.get(f"{proxy}/sessions/{s}").json() for s in sessions]
    print(
        f"claude exit {ran.returncode} after {elapsed:.1f} s; {len(stub.calls)} call(s) "
        f"upstream; {len(logged)} session(s) logged"
    )
    for call in stub.calls:
        body = call.json()
        print(
            f"upstream call {call.path}: model {body.get('model')}, "
            f"{len(body.get('messages', []))} message(s), {len(body.get('tools', []))} tool(s), "
            f"{'streamed' if body.get('stream') else 'plain'}, {len(call.body):,} bytes, "
            f"client key passed: {call.headers.get('x-api-key', '').endswith('ctxbudget')}"
        )
    for session in logged:
        measured = session["measurement"]
        kinds = [e["type"] for e in session["history"]]
        print(
            f"session {session['session_id']}: {len(kinds)} events, next request about "
            f"{measured['total_tokens']} tokens ({measured['baseline']['kind']} baseline)"
        )
    ok = ran.returncode == 0 and bool(stub.calls) and bool(logged) and "stub" in ran.stdout
    if not ok:
        print(ran.stdout[-2000:], ran.stderr[-2000:], file=sys.stderr)
    else:
        print("claude's answer:", json.loads(ran.stdout).get("result", "")[:80])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
