"""append_many throughput: SQLite with durable commits, PostgreSQL with 1, 2, 4 writers.

Each writer appends 10,000 events to its own session in batches (one transaction
per batch). PostgreSQL writers are separate processes with their own connections.

    .venv/bin/python benchmarks/ledger_throughput.py [postgresql://…]
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from ctxbudget.ledger import SQLiteLedger, open_ledger

EVENTS = 10_000
BATCHES = (10_000, 1_000, 100)
DEFAULT_PG = os.environ.get(
    "CTXBUDGET_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def events(session: str, count: int = EVENTS) -> list[dict[str, Any]]:
    """User and tool-result events of a realistic size (~300 bytes of JSON each)."""
    out: list[dict[str, Any]] = []
    for n in range(count):
        text = f"{session} event {n}: " + "the quick brown fox jumps over the lazy dog " * 5
        if n % 2:
            data = {
                "call_id": f"c{n}",
                "content": [{"type": "text", "text": text}],
                "is_error": False,
            }
            out.append({"type": "tool/result", "data": data, "surface_op": "append"})
        else:
            out.append(
                {
                    "type": "user/message",
                    "data": {"content": [{"type": "text", "text": text}]},
                    "surface_op": "append",
                }
            )
    return out


def append_all(ledger: Any, session: str, batch: int) -> float:
    payload = events(session)
    began = time.perf_counter()
    for start in range(0, EVENTS, batch):
        ledger.append_many(session, payload[start : start + batch])
    return time.perf_counter() - began


def sqlite_rows() -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for batch in BATCHES:
            with SQLiteLedger(Path(tmp) / f"b{batch}.sqlite3") as ledger:
                seconds = append_all(ledger, "s", batch)
            commits, rate = EVENTS // batch, EVENTS / seconds
            rows.append(
                f"sqlite     batch {batch:>6}  {commits:>4} commits  {rate:>9,.0f} events/s"
            )
    return rows


def pg_writer(url: str, schema: str, session: str, batch: int, start: Any, out: Any) -> None:
    with open_ledger(url, schema=schema) as ledger:
        start.wait()
        out.put(append_all(ledger, session, batch))


def pg_rows(url: str) -> list[str]:
    import psycopg

    schema = f"ctxbudget_bench_{uuid.uuid4().hex[:8]}"
    open_ledger(url, schema=schema).close()
    rows = []
    try:
        for batch in (1_000, 100):
            for writers in (1, 2, 4):
                start, out = multiprocessing.Event(), multiprocessing.Queue()
                procs = [
                    multiprocessing.Process(
                        target=pg_writer,
                        args=(url, schema, f"w{writers}-{batch}-{n}", batch, start, out),
                    )
                    for n in range(writers)
                ]
                for proc in procs:
                    proc.start()
                time.sleep(0.5)  # let every writer connect first
                began = time.perf_counter()
                start.set()
                for proc in procs:
                    proc.join()
                wall = time.perf_counter() - began
                per_writer = [EVENTS / out.get() for _ in procs]
                rows.append(
                    f"postgresql batch {batch:>6}  {writers} writer(s)  "
                    f"{writers * EVENTS / wall:>9,.0f} events/s total  "
                    f"({min(per_writer):,.0f}-{max(per_writer):,.0f} per writer)"
                )
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return rows


def main() -> None:
    print(f"append_many of {EVENTS:,} events per writer (durable commits)")
    for row in sqlite_rows():
        print(row)
    url = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_PG
    try:
        rows = pg_rows(url)
    except Exception as exc:  # a benchmark reports, it does not fail
        print(f"postgresql skipped: {exc}")
        return
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
