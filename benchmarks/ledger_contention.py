"""PostgreSQL under contention: many processes appending single events, no retries.

4 and 16 processes on one session, and 16 processes on 16 sessions. Each process
appends EACH events one at a time without ``expected_revision``; writers of one
session queue on the session's advisory lock. Prints throughput, p50/p99 append
latency, failed appends, and whether every session is gap-free and duplicate-free.

    .venv/bin/python benchmarks/ledger_contention.py [postgresql://…]
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import sys
import time
import uuid
from typing import Any

from ctxbudget.errors import CtxBudgetError
from ctxbudget.ledger import open_ledger

EACH = 250
DEFAULT_PG = os.environ.get(
    "CTXBUDGET_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def writer(url: str, schema: str, session: str, name: int, start: Any, out: Any) -> None:
    latencies, failures = [], 0
    with open_ledger(url, schema=schema) as ledger:
        start.wait()
        for n in range(EACH):
            began = time.perf_counter()
            try:
                ledger.append(session, {"type": "bench/write", "data": {"w": name, "n": n}})
            except CtxBudgetError:
                failures += 1
            latencies.append(time.perf_counter() - began)
    out.put((latencies, failures))


def run(url: str, schema: str, writers: int, sessions: int) -> str:
    tag = uuid.uuid4().hex[:6]
    names = [f"{tag}-{n % sessions}" for n in range(writers)]
    start, out = multiprocessing.Event(), multiprocessing.Queue()
    procs = [
        multiprocessing.Process(target=writer, args=(url, schema, names[n], n, start, out))
        for n in range(writers)
    ]
    for proc in procs:
        proc.start()
    time.sleep(1.0)  # every writer connected
    began = time.perf_counter()
    start.set()
    results = [out.get() for _ in procs]
    wall = time.perf_counter() - began
    for proc in procs:
        proc.join()
    latencies = sorted(x for lat, _ in results for x in lat)
    failures = sum(f for _, f in results)
    clean = True
    with open_ledger(url, schema=schema) as ledger:
        for session in set(names):
            events = ledger.events(session)
            pairs = [(e.data["w"], e.data["n"]) for e in events]
            clean &= [e.seq for e in events] == list(range(len(events)))
            clean &= len(set(pairs)) == len(pairs) == EACH * names.count(session)
    p99 = latencies[int(len(latencies) * 0.99) - 1]
    return (
        f"{writers:>2} processes -> {sessions:>2} session(s): {len(latencies) / wall:7,.0f} "
        f"appends/s, p50 {statistics.median(latencies) * 1000:6.2f} ms, p99 {p99 * 1000:6.2f} ms, "
        f"failed {failures}, log {'gap-free, no duplicates' if clean else 'DAMAGED'}"
    )


def baseline(url: str) -> str:
    """What one durable commit of one row costs on this server, for scale."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TEMP TABLE one (x int)")
        conn.execute("SET synchronous_commit = on")
        table = f"ctxbudget_bench_row_{uuid.uuid4().hex[:8]}"
        conn.execute(f"CREATE TABLE {table} (x int)")
        try:
            began = time.perf_counter()
            for n in range(100):
                with conn.transaction():
                    conn.execute(f"INSERT INTO {table} VALUES (%s)", (n,))
            cost = (time.perf_counter() - began) / 100
        finally:
            conn.execute(f"DROP TABLE {table}")
    return f"baseline: one INSERT + durable COMMIT of a bare row takes {cost * 1000:.2f} ms"


def main() -> None:
    import psycopg

    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PG
    schema = f"ctxbudget_bench_{uuid.uuid4().hex[:8]}"
    print(f"single appends, {EACH} per process, no expected_revision, durable commits")
    print(baseline(url))
    try:
        open_ledger(url, schema=schema).close()
        for writers, sessions in ((1, 1), (4, 1), (16, 1), (16, 16)):
            print(run(url, schema, writers, sessions))
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    main()
