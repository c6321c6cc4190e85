"""What does the budget proxy add to a call? Prints figures; not a timed test.

Everything runs on 127.0.0.1 and stops by itself: the stub provider
(``ctxbudget.testing.provider``) in a process of its own, ``ctxbudget serve`` in
another, and an asyncio load generator here. Each simulated agent session sends
its conversation (a ~20K- or ~200K-token history of varied synthetic text), then
re-sends it with the answer and a new user turn, call after call, as an agent
does. The same calls go once straight to the stub and once through the proxy, so
every figure is a side-by-side difference:

- added latency, p50 and p99, for 20K- and 200K-token requests at 1, 10 and 50
  concurrent sessions (warm: each session's first call, which counts its history
  for the first time, is reported apart as "cold");
- streaming: time to the first byte, direct vs through the proxy;
- throughput (calls/s, 20K tokens, 20 sessions) with 1 and 4 workers sharing a
  PostgreSQL ledger;
- the proxy process's own CPU time per warm call, which does not move with
  whatever else the machine runs (the latencies do).

Run: .venv/bin/python benchmarks/proxy_load.py [--quick] [--postgres URL] [--no-workers]
     [--cpu-only] [--goal-rounds N [--goal-calls N] [--baseline-src DIR]]
Bounded: each phase stops after its call count or --phase-seconds, whichever first.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ctxbudget.testing.provider import free_port

WORDS = [
    "the",
    "build",
    "fails",
    "because",
    "a",
    "test",
    "sleeps",
    "on",
    "the",
    "real",
    "clock",
    "so",
    "we",
    "inject",
    "a",
    "fake",
    "clock",
    "and",
    "assert",
    "the",
    "retry",
    "loop",
    "backs",
    "off",
    "exponentially",
    "while",
    "the",
    "parser",
    "keeps",
    "its",
    "state",
    "between",
    "calls",
    "def",
    "class",
    "return",
    "import",
    "from",
    "yield",
    "async",
    "await",
    "lambda",
    "None",
    "True",
    "值",
    "测试",
    "时钟",
    "重试",
    "解析器",
    "状态",
    "调用",
    "self.assertEqual(result,",
    "expected)",
    '{"path":',
    '"a.py"}',
]
CHARS_PER_TOKEN = 4.0  # close enough to size the histories; the stub reports its own usage


def history(seed: int, tokens: int) -> list[dict[str, Any]]:
    """A conversation of about ``tokens`` tokens: user/assistant turns of varied text."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": f"You are agent {seed}. Keep answers short."}
    ]
    budget = tokens * CHARS_PER_TOKEN
    turn = 0
    while budget > 0:
        size = rng.randint(200, 3000)
        text = " ".join(rng.choice(WORDS) for _ in range(size // 5))
        messages.append({"role": "user" if turn % 2 == 0 else "assistant", "content": text})
        budget -= len(text)
        turn += 1
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": "go on"})
    return messages


@dataclass
class Timing:
    cold: list[float]
    warm: list[float]
    ttfb: list[float]
    errors: list[str]


def streamed_text(raw: bytes) -> str:
    """The assistant text of a streamed Chat Completions answer (its content deltas)."""
    parts = []
    for line in raw.decode().splitlines():
        if line.startswith("data: {"):
            for choice in json.loads(line[6:]).get("choices", []):
                parts.append(choice.get("delta", {}).get("content") or "")
    return "".join(parts)


async def run_session(
    client: httpx.AsyncClient,
    url: str,
    seed: int,
    tokens: int,
    calls: int,
    deadline: float,
    stream: bool,
    timing: Timing,
) -> None:
    messages = history(seed, tokens)
    headers = {"x-ctxbudget-session": f"load-{seed}", "authorization": "Bearer sk-load"}
    for index in range(calls):
        if time.monotonic() > deadline:
            return
        body = {"model": "load-test", "messages": messages}
        if stream:
            body["stream"] = True
        raw = json.dumps(body).encode()
        started = time.perf_counter()
        if stream:
            async with client.stream(
                "POST", url + "/v1/chat/completions", content=raw, headers=headers
            ) as response:
                first = None
                text = []
                async for chunk in response.aiter_raw():
                    first = first or time.perf_counter()
                    text.append(chunk)
                # The next call re-sends what was streamed, as an agent does; anything
                # else would look to the proxy like a rewritten history on every call.
                reply = streamed_text(b"".join(text))
            timing.ttfb.append((first or time.perf_counter()) - started)
        else:
            response = await client.post(url + "/v1/chat/completions", content=raw, headers=headers)
            if response.status_code != 200:
                timing.errors.append(f"{response.status_code} {response.text[:200]}")
                return  # the session stops; the error is counted and shown
            reply = response.json()["choices"][0]["message"]["content"]
        elapsed = time.perf_counter() - started
        (timing.cold if index == 0 else timing.warm).append(elapsed)
        messages = [*messages, {"role": "assistant", "content": reply}]
        messages.append({"role": "user", "content": f"next step {index}"})


async def load(
    url: str, sessions: int, tokens: int, calls: int, seconds: float, stream: bool, seed0: int
) -> Timing:
    timing = Timing([], [], [], [])
    limits = httpx.Limits(max_connections=sessions + 5, max_keepalive_connections=sessions + 5)
    async with httpx.AsyncClient(timeout=120, limits=limits, trust_env=False) as client:
        deadline = time.monotonic() + seconds
        await asyncio.gather(
            *(
                run_session(client, url, seed0 + s, tokens, calls, deadline, stream, timing)
                for s in range(sessions)
            )
        )
    return timing


@dataclass(frozen=True)
class Server:
    url: str
    pid: int

    def cpu_seconds(self) -> float:
        """CPU time the server process has used so far (user + system)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def process(command: list[str], url: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """Start a server process, wait for it to answer, stop it (by its own pid) at the end."""
    child = subprocess.Popen(
        command,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if child.poll() is not None:
                raise RuntimeError(f"{command[:4]} exited with {child.returncode}")
            try:
                httpx.post(url + "/v1/chat/completions", content=b"{}", timeout=1, trust_env=False)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield Server(url, child.pid)
    finally:
        child.terminate()
        try:
            child.wait(20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def stub_process() -> contextlib.AbstractContextManager[Server]:
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "ctxbudget.testing.provider:stub_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    return process(command, f"http://127.0.0.1:{port}")


def proxy_process(
    stub: str, ledger: str, workers: int, source: str | None = None
) -> contextlib.AbstractContextManager[Server]:
    """``ctxbudget serve`` in front of ``stub``; ``source``: the ``src`` directory of
    another source tree to run it from (a baseline), instead of the installed one."""
    port = free_port()
    # The stub is as loaded as the proxy here: give it time to accept connections.
    config = Path(tempfile.mkdtemp()) / "agent.toml"
    config.write_text("[server]\nconnect_timeout_s = 120\nupstream_timeout_s = 600\n")
    command = [
        sys.executable,
        "-c",
        "from ctxbudget.cli import main; main()",
        "serve",
        "--port",
        str(port),
        "--upstream-openai",
        stub + "/v1",
        "--ledger",
        ledger,
        "--max-input",
        "1000000",
        "--workers",
        str(workers),
        "--config",
        str(config),
    ]
    env = {"PYTHONPATH": source} if source else None
    return process(command, f"http://127.0.0.1:{port}", env)


def ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency_table(stub: Server, proxy: Server, quick: bool, seconds: float) -> None:
    print("\n## Added latency (non-streaming), warm calls; cold = each session's first call")
    print(
        "| request | sessions | calls | direct p50 / p99 | proxy p50 / p99 | added p50 / p99 "
        "| added cold p50 | failed |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for tokens in (20_000, 200_000):
        for sessions in (1, 10, 50):
            per_session = _calls(tokens, sessions, quick)
            seed = tokens + 1000 * sessions
            direct = asyncio.run(
                load(stub.url, sessions, tokens, per_session, seconds, False, seed)
            )
            proxied = asyncio.run(
                load(proxy.url, sessions, tokens, per_session, seconds, False, seed)
            )
            # Calls are logged after their answers: let this phase's logging finish, so
            # that it is not counted against the next phase's calls.
            for session in range(sessions):
                settle(proxy, f"load-{seed + session}", quiet=0.0)
            time.sleep(QUIET_SECONDS)
            print(
                f"| {tokens // 1000}K | {sessions} | {len(proxied.warm) + len(proxied.cold)} "
                f"| {ms(direct.warm, 0.5):.1f} / {ms(direct.warm, 0.99):.1f} ms "
                f"| {ms(proxied.warm, 0.5):.1f} / {ms(proxied.warm, 0.99):.1f} ms "
                f"| {ms(proxied.warm, 0.5) - ms(direct.warm, 0.5):+.1f} / "
                f"{ms(proxied.warm, 0.99) - ms(direct.warm, 0.99):+.1f} ms "
                f"| {ms(proxied.cold, 0.5) - ms(direct.cold, 0.5):+.1f} ms "
                f"| {len(direct.errors)} / {len(proxied.errors)} |",
                flush=True,
            )
            for error in (direct.errors + proxied.errors)[:1]:
                print(f"  first failure: {error}")


def goal_table(
    stub: Server, proxies: dict[str, Server], rounds: int, calls: int, seconds: float
) -> None:
    """The goal's figure, in rounds: each round sends one new session's warm 20K-token
    calls straight to the stub, then the same calls through each proxy (in turn first;
    ``proxies`` holds this tree's and, with ``--baseline-src``, another's), and reads each
    proxy's CPU time over its calls. One round's p50 moves with whatever else the machine
    runs; the pooled p50 of the interleaved rounds much less."""
    print(
        f"\n## Goal: added latency of a warm 20K-token call, 1 session, {rounds} rounds "
        f"of {calls} calls, proxies interleaved"
    )
    direct: list[float] = []
    warm: dict[str, list[float]] = {name: [] for name in proxies}
    cpu: dict[str, list[float]] = {name: [] for name in proxies}
    for index in range(rounds):
        seed = 31_000 + index
        straight = asyncio.run(load(stub.url, 1, 20_000, calls + 1, seconds, False, seed)).warm
        direct += straight
        order = list(proxies) if index % 2 == 0 else list(reversed(proxies))
        line = []
        for name in order:
            proxy = proxies[name]
            asyncio.run(load(proxy.url, 1, 20_000, 1, seconds, False, seed))  # the cold call
            settle(proxy, f"load-{seed}")
            before = proxy.cpu_seconds()
            timing = asyncio.run(load(proxy.url, 1, 20_000, calls, seconds, False, seed))
            time.sleep(QUIET_SECONDS)
            cpu[name].append((proxy.cpu_seconds() - before) / calls)
            warm[name] += timing.warm
            line.append(f"{name} {ms(timing.warm, 0.5) - ms(straight, 0.5):+.1f} ms")
        print(f"- round {index + 1} (load average {os.getloadavg()[0]:.1f}): " + ", ".join(line))
    for name in proxies:
        spent = sorted(cpu[name])
        print(
            f"- {name}: added p50 {ms(warm[name], 0.5) - ms(direct, 0.5):+.1f} ms, p99 "
            f"{ms(warm[name], 0.99) - ms(direct, 0.99):+.1f} ms (direct p50 "
            f"{ms(direct, 0.5):.1f} ms); CPU per warm call: median "
            f"{1000 * spent[len(spent) // 2]:.1f} ms ({1000 * spent[0]:.1f}-"
            f"{1000 * spent[-1]:.1f})",
            flush=True,
        )


def _calls(tokens: int, sessions: int, quick: bool) -> int:
    total = (200 if tokens == 20_000 else 40) // (4 if quick else 1)
    return max(3, total // sessions)


def cpu_table(proxy: Server, quick: bool, seconds: float) -> None:
    """CPU the proxy process spends per warm call: what it adds on an idle machine,
    whatever else the machine is running (latency figures move with the load)."""
    print("\n## Proxy CPU per warm call (1 session, the proxy process's own CPU time)")
    for tokens, calls in ((20_000, 60), (200_000, 12)):
        calls = max(5, calls // (3 if quick else 1))
        seed = 77 + tokens
        asyncio.run(load(proxy.url, 1, tokens, 1, seconds, False, seed))  # the cold call
        # The cold call is logged after its answer (its whole history: 10-100 ms): wait
        # for it (a session read waits until the session's calls are logged) so that it
        # is not counted against the warm calls.
        settle(proxy, f"load-{seed}")
        before = proxy.cpu_seconds()
        # The same seed: the same history, so every measured call is warm.
        timing = asyncio.run(load(proxy.url, 1, tokens, calls, seconds, False, seed))
        # The last call's logging is part of its cost: let it finish before reading.
        time.sleep(QUIET_SECONDS)
        spent = proxy.cpu_seconds() - before
        done = len(timing.warm) + len(timing.cold)
        print(
            f"- {tokens // 1000}K tokens: {1000 * spent / done:.1f} ms CPU per call ({done} calls)"
        )


QUIET_SECONDS = 0.5
"""How long the proxy is left alone before its CPU time is read: longer than logging a
warm call takes, so each measured call's logging is counted."""


def settle(proxy: Server, session_id: str, quiet: float = QUIET_SECONDS) -> None:
    """Wait until the proxy has logged every call of ``session_id``, then until it is idle."""
    httpx.get(f"{proxy.url}/sessions/{session_id}/measure", timeout=600, trust_env=False)
    time.sleep(quiet)


def streaming_table(stub: Server, proxy: Server, quick: bool, seconds: float) -> None:
    print("\n## Streaming: time to first byte (1 session, 20K tokens, warm calls)")
    calls = 10 if quick else 40
    direct = asyncio.run(load(stub.url, 1, 20_000, calls, seconds, True, 7))
    proxied = asyncio.run(load(proxy.url, 1, 20_000, calls, seconds, True, 7))
    for name, timing in (("direct", direct), ("proxy", proxied)):
        first = timing.ttfb[1:]
        print(f"- {name}: p50 {ms(first, 0.5):.1f} ms, p99 {ms(first, 0.99):.1f} ms")


def throughput(stub: Server, postgres: str, quick: bool, seconds: float) -> None:
    print("\n## Throughput: 20 sessions of 20K-token calls, PostgreSQL ledger")
    import psycopg

    for workers in (1, 4):
        schema = f"ctxbudget_load_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(postgres, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        ledger = f"{postgres}?options=-csearch_path%3D{schema}"
        try:
            with proxy_process(stub.url, ledger, workers) as proxy:
                calls = 3 if quick else 8
                asyncio.run(load(proxy.url, workers * 2, 20_000, 1, seconds, False, 900))
                started = time.perf_counter()
                timing = asyncio.run(
                    load(proxy.url, 20, 20_000, calls, seconds, False, 500 + workers)
                )
                elapsed = time.perf_counter() - started
            done = len(timing.cold) + len(timing.warm)
            print(
                f"- {workers} worker(s): {done} calls in {elapsed:.1f} s = "
                f"{done / elapsed:.1f} calls/s (warm p50 {ms(timing.warm, 0.5):.0f} ms)",
                flush=True,
            )
        finally:
            with psycopg.connect(postgres, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the calls")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--no-workers", action="store_true", help="skip the PostgreSQL phase")
    parser.add_argument("--phase-seconds", type=float, default=60.0)
    parser.add_argument("--cpu-only", action="store_true", help="only the CPU per warm call")
    parser.add_argument(
        "--goal-rounds", type=int, default=0, help="only the goal's figure, in this many rounds"
    )
    parser.add_argument("--goal-calls", type=int, default=60, help="warm calls per goal round")
    parser.add_argument(
        "--baseline-src",
        default=None,
        help="with --goal-rounds: also run a proxy from this src directory (another "
        "checkout, e.g. `git archive main src | tar -x -C /tmp/main`), interleaved",
    )
    args = parser.parse_args()
    print(f"# proxy_load on {os.cpu_count()} CPUs; stub, proxy and load generator on loopback")
    print(f"# load average before the run: {os.getloadavg()[0]:.1f}")
    with stub_process() as stub, tempfile.TemporaryDirectory() as tmp:
        if args.goal_rounds:
            with contextlib.ExitStack() as stack:
                proxies = {
                    "this tree": stack.enter_context(
                        proxy_process(stub.url, f"sqlite:///{tmp}/ledger.sqlite", 1)
                    )
                }
                if args.baseline_src:
                    proxies["baseline"] = stack.enter_context(
                        proxy_process(
                            stub.url, f"sqlite:///{tmp}/baseline.sqlite", 1, args.baseline_src
                        )
                    )
                goal_table(stub, proxies, args.goal_rounds, args.goal_calls, args.phase_seconds)
            return
        with proxy_process(stub.url, f"sqlite:///{tmp}/ledger.sqlite", 1) as proxy:
            cpu_table(proxy, args.quick, args.phase_seconds)
            if args.cpu_only:
                return
            latency_table(stub, proxy, args.quick, args.phase_seconds)
            streaming_table(stub, proxy, args.quick, args.phase_seconds)
        if not args.no_workers:
            throughput(stub, args.postgres, args.quick, args.phase_seconds)


if __name__ == "__main__":
    main()
