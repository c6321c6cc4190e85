"""measure() after one append: 100-node vs 10,000-node sessions, side by side.

The reference meter copies every node on every measure (O(surface)); ours shares
the node vector between snapshots, so the two columns should be close. Then one
meter measures 5,000 sessions: the folds it keeps stay within its byte budget
(traced allocations beside the meter's own estimate).

    .venv/bin/python benchmarks/meter_scaling.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from ctxbudget.ledger import Ledger, MemoryLedger, SQLiteLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import SEED_OVERHEADS, Chars4Counter

SIZES = (100, 10_000)
ROUNDS = 300


def user(n: int) -> dict[str, object]:
    text = f"message {n}: " + "lorem ipsum dolor sit amet " * 4
    return {
        "type": "user/message",
        "data": {"content": [{"type": "text", "text": text}]},
        "surface_op": "append",
    }


def measure_after_append(ledger: Ledger, session: str, nodes: int) -> tuple[float, float]:
    """Median µs of measure() after each single append, and of copying the nodes."""
    for start in range(0, nodes, 1000):
        ledger.append_many(session, [user(n) for n in range(start, min(nodes, start + 1000))])
    meter = TokenMeter(ledger, Chars4Counter(), 1_000_000, SEED_OVERHEADS)
    first = meter.measure(session)
    timings, copies = [], []
    for n in range(ROUNDS):
        ledger.append(session, user(nodes + n))
        began = time.perf_counter()
        m = meter.measure(session)
        timings.append(time.perf_counter() - began)
        began = time.perf_counter()
        tuple(m.nodes)  # what the reference pays on every measure
        copies.append(time.perf_counter() - began)
    assert len(first.nodes) == nodes  # earlier snapshots stay as they were
    return statistics.median(timings) * 1e6, statistics.median(copies) * 1e6


def run(name: str, make: Callable[[], Ledger]) -> None:
    results = {}
    for size in SIZES:
        with make() as ledger:
            results[size] = measure_after_append(ledger, f"s{size}", size)
    small, large = results[SIZES[0]], results[SIZES[-1]]
    print(
        f"{name:<8} measure µs: {small[0]:8.1f} @100  {large[0]:8.1f} @10k  "
        f"ratio {large[0] / small[0]:.2f}x   "
        f"(an O(surface) node copy alone: {small[1]:.1f} vs {large[1]:.1f} µs, "
        f"{large[1] / small[1]:.0f}x)"
    )


def many_sessions(sessions: int = 5_000, budget: int = 2 * 1024 * 1024) -> None:
    """Traced memory the meter holds after measuring many 20-node sessions."""
    ledger = MemoryLedger()
    for n in range(sessions):
        ledger.append_many(f"m{n}", [user(i) for i in range(20)])
    for limit in (budget, 64 * budget):
        meter = TokenMeter(
            ledger, Chars4Counter(), 1_000_000, SEED_OVERHEADS, fold_cache_bytes=limit
        )
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for n in range(sessions):
            meter.measure(f"m{n}")
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        print(
            f"{sessions:,} sessions, fold budget {limit / 2**20:5.0f} MiB: "
            f"{meter.cached_sessions:>5,} folds kept, estimate {meter.cached_bytes / 2**20:5.2f} "
            f"MiB, traced {held / 2**20:5.2f} MiB"
        )


def main() -> None:
    print(f"measure() after one append, median of {ROUNDS} rounds (chars4 seed mode)")
    run("memory", MemoryLedger)
    with tempfile.TemporaryDirectory() as tmp:
        run("sqlite", lambda: SQLiteLedger(Path(tmp) / "bench.sqlite3"))
    many_sessions()


if __name__ == "__main__":
    main()
