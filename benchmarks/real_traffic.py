"""Real traffic: does the meter's total before each call predict the provider's prompt size?

Reads Claude Code headless runs (stream-json with ``usage`` on every call) from
the shared corpus at run time, never copying them. Each run becomes a ledger
session, call by call: ``step/start``, ``request/header`` when the model changes,
then **measure** (the prediction), then the call's chunks, ``assistant/message``
with its usage, the ``tool/result`` events, ``step/end``. The recorded prompt size
of a call is input + cache read + cache write tokens.

Only calls with a usage anchor from an earlier call are scored: the transcripts
do not contain Claude Code's system prompt and tool schemas, so a first call can
only be guessed. With an anchor, the prediction is the previous call's usage plus
the priced delta (the tool results that came back), which is what a counter is for.

    .venv/bin/python benchmarks/real_traffic.py [PATH/TO/claude-code-vecsum]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import (
    SEED_OVERHEADS,
    Chars4Counter,
    CJKCounter,
    TokenCounter,
    central_counter,
    default_counter,
    get_counter,
    json_text,
)

CORPUS = Path(__file__).resolve().parents[2] / "shared/corpus/transcripts/claude-code-vecsum"
TARGET_P95 = 1.5


# -- reading the transcripts ------------------------------------------------------------------


@dataclass
class Call:
    """One provider call: its content blocks, usage, and the tool results that followed."""

    model: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def prompt_tokens(self) -> int:
        u = self.usage
        return (
            u.get("input_tokens", 0)
            + u.get("cache_read_input_tokens", 0)
            + u.get("cache_creation_input_tokens", 0)
        )


def stream_events(path: Path) -> list[dict[str, Any]]:
    """The stream-json events of one ``*_RESPONSE.md`` (``[]`` if it holds none)."""
    text = path.read_text(encoding="utf-8")
    body = text[text.index("```json", text.index("## Raw JSON Output")) :]
    body = body.split("\n", 2)[2]  # drop the fence line and the "// FULL JSON" comment
    document, _ = json.JSONDecoder().raw_decode(body)
    events = document.get("_RESPONSE") if isinstance(document, dict) else None
    return events if isinstance(events, list) else []


def calls_of(events: list[dict[str, Any]]) -> list[Call]:
    """Main-thread calls in order; one stream event per block is merged by message id."""
    calls: dict[str, Call] = {}
    last: Call | None = None
    for event in events:
        if event.get("parent_tool_use_id"):
            continue  # a sub-agent's own conversation
        message = event.get("message", {})
        if event.get("type") == "assistant" and message.get("model") != "<synthetic>":
            last = calls.setdefault(message["id"], Call(message["model"]))
            last.blocks.extend(_block(b) for b in message.get("content", []))
            last.usage = message.get("usage", {})
        elif event.get("type") == "user" and last is not None:
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_result":
                    last.results.append(block)
    return list(calls.values())


def _block(block: dict[str, Any]) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind == "thinking":
        return {"type": "reasoning", "text": block.get("thinking", "")}
    if kind == "tool_use":
        arguments = json_text(block.get("input", {}))
        return {
            "type": "tool-call",
            "id": block["id"],
            "name": block["name"],
            "arguments": arguments,
        }
    return dict(block)


def _result_content(block: dict[str, Any]) -> list[dict[str, Any]]:
    content = block.get("content", "")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [
        {"type": "text", "text": c.get("text", "")} if c.get("type") == "text" else dict(c)
        for c in content
    ]


# -- feeding the ledger and scoring ----------------------------------------------------------


@dataclass
class Score:
    errors: list[float] = field(default_factory=list)
    unanchored: int = 0
    priced_growth: int = 0
    actual_growth: int = 0
    # (anchor, priced delta, actual) per scored call, for the what-if scaling below
    points: list[tuple[int, int, int]] = field(default_factory=list)

    def best_scale(self) -> tuple[float, float]:
        """The factor on the priced delta that minimizes p95, and that p95 (a diagnostic:
        how far a better-calibrated counter could take this meter)."""
        best = (1.0, percentile(self.errors, 95))
        for step in range(70, 141):
            k = step / 100
            errors = [abs(a + k * d - t) / t * 100 for a, d, t in self.points]
            best = min(best, (k, percentile(errors, 95)), key=lambda pair: pair[1])
        return best


def replay(
    session: str, calls: list[Call], meter: TokenMeter, ledger: MemoryLedger
) -> Iterator[tuple[int, Call, str, int]]:
    """Log the calls one by one; yield (step, call, baseline kind, predicted total)."""
    model = None
    for step, call in enumerate(calls, start=1):
        ledger.append(session, {"type": "step/start", "data": {"turn": 1, "step": step}})
        if call.model != model:
            header = {"config": {"provider": "anthropic", "model": call.model}}
            ledger.append(session, {"type": "request/header", "data": {"header": header}})
            model = call.model
        measured = meter.measure(session)
        yield step, call, measured.baseline.kind, measured.total_tokens
        _log_call(session, step, call, ledger)


def _log_call(session: str, step: int, call: Call, ledger: MemoryLedger) -> None:
    u = call.usage
    usage = {
        "input_tokens": u.get("input_tokens", 0),
        "output_tokens": u.get("output_tokens", 0),
        "cache_read_tokens": u.get("cache_read_input_tokens", 0),
        "cache_write_tokens": u.get("cache_creation_input_tokens", 0),
    }
    chunks = [
        {
            "type": "assistant/chunk",
            "data": {
                "turn": 1,
                "step": step,
                "chunk": {"type": "block-end", "index": i, "block": b},
            },
        }
        for i, b in enumerate(call.blocks)
    ]
    first = ledger.append_many(session, chunks)
    data = {
        "turn": 1,
        "step": step,
        "content": call.blocks,
        "provenance": {"provider": "anthropic", "model": call.model},
        "usage": usage,
    }
    ledger.append(
        session,
        {"type": "assistant/message", "data": data, "surface_op": "append", "source_seqs": first},
    )
    for result in call.results:
        data = {
            "turn": 1,
            "step": step,
            "call_id": result.get("tool_use_id", ""),
            "content": _result_content(result),
            "is_error": bool(result.get("is_error", False)),
        }
        ledger.append(session, {"type": "tool/result", "data": data, "surface_op": "append"})
    ledger.append(session, {"type": "step/end", "data": {"turn": 1, "step": step}})


def score(
    runs: dict[str, list[Call]], counter: TokenCounter | None, calibrate: bool = False
) -> Score:
    """Replay every run; ``counter=None`` scores the meter exactly as ``TokenMeter(ledger)``
    makes it (default counter, its overheads, usage calibration on)."""
    result = Score()
    ledger = MemoryLedger(clock=lambda: 0)
    if counter is None:
        meter = TokenMeter(ledger, context_window=1_000_000)
    else:
        meter = TokenMeter(ledger, counter, 1_000_000, SEED_OVERHEADS, calibrate=calibrate)
    for session, calls in runs.items():
        previous: Call | None = None
        for _, call, kind, predicted in replay(session, calls, meter, ledger):
            actual = call.prompt_tokens
            if kind != "usage" or previous is None or actual == 0:
                result.unanchored += 1
            else:
                result.errors.append(abs(predicted - actual) / actual * 100)
                anchor = previous.prompt_tokens + previous.usage.get("output_tokens", 0)
                result.priced_growth += predicted - anchor
                result.actual_growth += actual - anchor
                result.points.append((anchor, predicted - anchor, actual))
            previous = call
    return result


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    files = sorted((corpus / "reports").glob("*_RESPONSE.md"))
    if not files:
        print(f"no transcripts under {corpus}; pass the claude-code-vecsum folder")
        return
    runs = {path.stem: calls for path in files if (calls := calls_of(stream_events(path)))}
    total_calls = sum(len(c) for c in runs.values())
    print(f"{len(runs)} runs, {total_calls} calls; scored: calls with a usage anchor")
    print(f"abs % error of the predicted prompt size, target p95 <= {TARGET_P95}%")
    head = f"{'counter':<31} {'scored':>6} {'p50 %':>7} {'p95 %':>7} {'max %':>7}"
    print(f"{head}  growth priced/actual  [best scale -> p95]")
    counters: list[tuple[str, Callable[[], TokenCounter | None], bool]] = [
        ("chars4 (seed 002)", Chars4Counter, False),
        ("cjk (seed 003)", CJKCounter, False),
        ("default_counter()", default_counter, False),
        ("calibrated:central", central_counter, False),
        ("tiktoken:cl100k_base (exact)", lambda: get_counter("tiktoken:cl100k_base"), False),
        ("chars4 + usage calibration", Chars4Counter, True),
        ("cjk + usage calibration", CJKCounter, True),
        ("TokenMeter(ledger), as shipped", lambda: None, True),
    ]
    for name, make, calibrate in counters:
        try:
            counter = make()
        except Exception as exc:  # a benchmark reports, it does not fail
            print(f"{name:<31} unavailable: {exc}")
            continue
        if name.startswith("default") and counter is not None:
            name = f"default [{counter.name}]"
        s = score(runs, counter, calibrate)
        ratio = s.priced_growth / s.actual_growth if s.actual_growth else float("nan")
        p95 = percentile(s.errors, 95)
        verdict = "ok" if p95 <= TARGET_P95 else "over target"
        scale, scaled_p95 = s.best_scale()
        print(
            f"{name:<31} {len(s.errors):>6} {percentile(s.errors, 50):>7.2f} {p95:>7.2f} "
            f"{max(s.errors):>7.2f}  {ratio:>6.1%}  [x{scale:.2f} -> {scaled_p95:.2f}]  {verdict}"
        )


if __name__ == "__main__":
    main()
