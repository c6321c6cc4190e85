"""Compacting a 2,000-turn session on SQLite with ExtractiveSummarizer: time, peak memory,
and what the meter pays right after the compaction.

The session is agent-shaped: each turn a user request, an assistant answer with a tool
call every other turn, and its tool result. The meter is the default one (central
counter, 128k window) and the config the default (compact at 80 %, keep 16 %).

    .venv/bin/python benchmarks/compaction_speed.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from ctxbudget.archives import FileArchive
from ctxbudget.compaction import Compacted, Compactor
from ctxbudget.ledger import SQLiteLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import ExtractiveSummarizer, SummaryRequest

TURNS = 2_000
SID = "bench"


def text(t: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t}]


def turn_events(n: int) -> list[dict[str, Any]]:
    ask = f"Turn {n}: please update src/module_{n % 40}.py so that parse_{n} handles empty input."
    answer = (
        f"I looked at src/module_{n % 40}.py. We decided to guard parse_{n} with an early "
        "return instead of a try block, because the caller already validates types. "
    ) * 2
    events: list[dict[str, Any]] = [
        {"type": "turn/start", "data": {"turn": n}},
        {"type": "user/message", "data": {"content": text(ask)}, "surface_op": "append"},
        {"type": "step/start", "data": {"turn": n, "step": 1}},
    ]
    if n == 1:
        config = {"provider": "openai", "model": "gpt-4o"}
        events.append({"type": "request/header", "data": {"header": {"config": config}}})
    content = text(answer)
    if n % 2:
        content.append(
            {"type": "tool-call", "id": f"c{n}", "name": "run_tests", "arguments": '{"k": "x"}'}
        )
    data = {"turn": n, "step": 1, "content": content, "provenance": {"provider": "openai"}}
    events.append({"type": "assistant/message", "data": data, "surface_op": "append"})
    if n % 2:
        output = f"FAILED tests/test_module_{n % 40}.py::test_empty - AssertionError\n" * 6
        result = {"turn": n, "step": 1, "call_id": f"c{n}", "content": text(output)}
        events.append({"type": "tool/call", "data": {"call_id": f"c{n}", "name": "run_tests"}})
        events.append({"type": "tool/result", "data": result, "surface_op": "append"})
    events += [
        {"type": "step/end", "data": {"turn": n, "step": 1}},
        {"type": "turn/end", "data": {"turn": n}},
    ]
    return events


class TimedSummarizer:
    def __init__(self) -> None:
        self.inner = ExtractiveSummarizer()
        self.seconds = 0.0
        self.messages = 0

    def summarize(self, request: SummaryRequest) -> str:
        began = time.perf_counter()
        try:
            return self.inner.summarize(request)
        finally:
            self.seconds += time.perf_counter() - began
            self.messages += len(request.messages)


def median_us(action: Any, rounds: int = 50) -> float:
    timings = []
    for _ in range(rounds):
        began = time.perf_counter()
        action()
        timings.append(time.perf_counter() - began)
    return statistics.median(timings) * 1e6


def build(path: Path) -> SQLiteLedger:
    ledger = SQLiteLedger(path)
    for start in range(1, TURNS + 1, 100):
        batch = [e for n in range(start, min(TURNS + 1, start + 100)) for e in turn_events(n)]
        ledger.append_many(SID, batch)
    return ledger


def peak_memory(tmp: Path) -> int:
    """Peak traced memory of one compaction (a separate run: tracing slows Python down)."""
    ledger = build(tmp / "traced.sqlite3")
    meter = TokenMeter(ledger)
    meter.measure(SID)
    engine = Compactor(ledger, meter, ExtractiveSummarizer(), FileArchive(tmp / "traced"))
    tracemalloc.start()
    engine.compact_if_needed(SID)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ledger.close()
    return peak


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ledger = build(Path(tmp) / "ledger.sqlite3")
        meter = TokenMeter(ledger)
        began = time.perf_counter()
        before = meter.measure(SID)
        replay_before = time.perf_counter() - began
        watcher = TokenMeter(ledger)  # a second reader, caught up before the compaction
        watcher.measure(SID)
        summarizer = TimedSummarizer()
        engine = Compactor(ledger, meter, summarizer, FileArchive(Path(tmp) / "originals"))

        began = time.perf_counter()
        outcome = engine.compact_if_needed(SID)
        elapsed = time.perf_counter() - began
        assert isinstance(outcome, Compacted), outcome

        began = time.perf_counter()
        after = watcher.measure(SID)
        fold_commit = (time.perf_counter() - began) * 1e6
        warm_after = median_us(lambda: meter.measure(SID))
        began = time.perf_counter()
        TokenMeter(ledger).measure(SID)
        replay_after = time.perf_counter() - began
        ledger.append(SID, {"type": "turn/start", "data": {"turn": TURNS + 1}})
        began = time.perf_counter()
        meter.measure(SID)
        first_append = (time.perf_counter() - began) * 1e6
        ledger.close()
        peak = peak_memory(Path(tmp))

        print(f"session: {TURNS} turns, {before.log_revision} events, {len(before.nodes)} nodes")
        print(f"  total before {before.total_tokens:,} tokens, after {after.total_tokens:,}")
        print(
            f"  shadowed {len(outcome.shadowed_seqs):,} nodes / {outcome.shadowed_tokens:,} "
            f"tokens -> checkpoint of {outcome.summary_tokens:,} tokens "
            f"(net {outcome.net_removed_tokens:,})"
        )
        print(
            f"compact_if_needed: {elapsed * 1e3:.0f} ms (extractive summary "
            f"{summarizer.seconds * 1e3:.0f} ms over {summarizer.messages} messages; the "
            f"first full replay of the same log took {replay_before * 1e3:.0f} ms), "
            f"peak traced memory {peak / 2**20:.1f} MiB"
        )
        print(
            f"meter right after: first measure (folds the commit) {fold_commit:.0f} µs, then "
            f"{warm_after:.0f} µs warm; after the next append {first_append:.0f} µs; full "
            f"replay {replay_after * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()
