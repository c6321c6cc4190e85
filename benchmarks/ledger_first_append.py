"""First append of a process: a 100,000-event session against a 100-event one, side by side.

Each figure is a fresh process that opens the store and times its first append
(and the append right after a ``ConflictError``), so no cache of an earlier append
helps. Goal: the long session within 3x of the short one.

    .venv/bin/python benchmarks/ledger_first_append.py [postgresql://…]
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from typing import Any

from ctxbudget.errors import ConflictError
from ctxbudget.ledger import open_ledger

LONG, SHORT, RUNS = 100_000, 100, 11
DEFAULT_PG = os.environ.get(
    "CTXBUDGET_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def message(n: int) -> dict[str, Any]:
    text = f"event {n}: " + "the quick brown fox jumps over the lazy dog " * 5
    return {
        "type": "user/message",
        "data": {"content": [{"type": "text", "text": text}]},
        "surface_op": "append",
    }


def fill(url: str, options: dict[str, Any], session: str, count: int) -> None:
    with open_ledger(url, **options) as ledger:
        for start in range(0, count, 5_000):
            ledger.append_many(
                session, [message(n) for n in range(start, min(count, start + 5_000))]
            )


def child(url: str, options_json: str, session: str) -> None:
    """Run in a fresh process: time the first append, then one after a conflict."""
    with open_ledger(url, **json.loads(options_json)) as ledger:
        began = time.perf_counter()
        seq = ledger.append(session, message(-1))
        first = time.perf_counter() - began
        with contextlib.suppress(ConflictError):
            ledger.append(session, message(-2), expected_revision=0)
        began = time.perf_counter()
        ledger.append(session, message(-3), expected_revision=seq + 1)
        after_conflict = time.perf_counter() - began
    print(json.dumps([first, after_conflict]))


def one_run(url: str, options: dict[str, Any], session: str) -> list[float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", url, json.dumps(options), session],
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(x) * 1000 for x in json.loads(out.stdout)]


def compare(name: str, url: str, options: dict[str, Any]) -> None:
    fill(url, options, "long", LONG)
    fill(url, options, "short", SHORT)
    # Long and short runs alternate, so load on the machine hits both alike.
    runs: dict[str, list[list[float]]] = {"long": [], "short": []}
    for _ in range(RUNS):
        for session, samples in runs.items():
            samples.append(one_run(url, options, session))
    for index, what in enumerate(("first append", "after conflict")):
        long_ms = statistics.median(r[index] for r in runs["long"])
        short_ms = statistics.median(r[index] for r in runs["short"])
        print(
            f"{name:<10} {what:<14} {LONG:,} events {long_ms:7.2f} ms, {SHORT} events "
            f"{short_ms:7.2f} ms, ratio {long_ms / short_ms:4.2f}x"
        )


def main() -> None:
    print(f"median of {RUNS} fresh processes each (durable commits)")
    with tempfile.TemporaryDirectory() as tmp:
        compare("sqlite", f"sqlite:///{tmp}/first.sqlite3", {})
    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PG
    schema = f"ctxbudget_bench_{uuid.uuid4().hex[:8]}"
    try:
        import psycopg

        compare("postgresql", url, {"schema": schema})
    except Exception as exc:  # a benchmark reports, it does not fail
        print(f"postgresql skipped: {exc}")
        return
    finally:
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        except Exception:
            pass


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
    else:
        main()
