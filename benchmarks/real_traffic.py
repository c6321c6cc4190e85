"""Real traffic: how well does the meter predict each call's prompt on real sessions?

Imports every transcript under the shared corpus that ``ctxbudget.transcripts``
reads (Claude Code stream-json runs, OpenHands runs, ...) at run time, never
copying them, logs each session into a ledger and replays it with
``TokenMeter.history``: the meter's measurement before each call beside the
prompt the provider reported for it (input + cache read + cache write).

Scored: every call after the session's first call with usage (whatever the meter
then made of that usage). The transcripts do not hold every agent's system prompt
and tool schemas, so a first call can only be guessed; after it, the prediction
is the last usage plus the priced delta, which is what a meter is for. Nothing
here is fitted: the meter runs as shipped, and the same table is what other
agents' sessions are checked on.

    .venv/bin/python benchmarks/real_traffic.py [CORPUS_DIR]
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ctxbudget.errors import CtxBudgetError, TranscriptError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import SEED_ANCHOR_RULE, TokenMeter
from ctxbudget.tokens import SEED_OVERHEADS, Chars4Counter, TokenCounter, get_counter
from ctxbudget.transcripts import ImportedSession, read_transcript
from ctxbudget.transcripts.session import SessionBuilder

CORPUS = Path(__file__).resolve().parents[2] / "shared/corpus/transcripts"
POOLED_P95, GROUP_P95, GROUP_MIN_CALLS = 1.5, 3.0, 50

MeterFactory = Callable[[MemoryLedger], TokenMeter]
METERS: list[tuple[str, MeterFactory]] = [
    ("TokenMeter(ledger), as shipped", lambda led: TokenMeter(led, context_window=1_000_000)),
    (
        "  the seed's anchor rule",
        lambda led: TokenMeter(led, context_window=1_000_000, anchor_rule=SEED_ANCHOR_RULE),
    ),
    (
        "  no usage calibration",
        lambda led: TokenMeter(led, context_window=1_000_000, calibrate=False),
    ),
    (
        "seed meter (chars4, 4/4)",
        lambda led: TokenMeter(led, Chars4Counter(), 1_000_000, SEED_OVERHEADS),
    ),
]


def sessions_with_usage(corpus: Path) -> tuple[list[ImportedSession], int]:
    """Every imported session that recorded usage, and how many files were not read."""
    found, unread = [], 0
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix != ".txt"):
        if path.name == "README.md":
            continue
        try:
            found += [s for s in read_transcript(path) if s.calls_with_usage]
        except TranscriptError:
            unread += 1  # not a format the importers cover (SpecStory, aider, ShareGPT ...)
    return found, unread


def language(session: ImportedSession) -> str:
    """The session's main script: ja (kana), ko (hangul), zh (han), else en."""
    counts: dict[str, int] = defaultdict(int)
    for char in "".join(_texts(session)):
        code = ord(char)
        if 0x3040 <= code <= 0x30FF:
            counts["ja"] += 1
        elif 0xAC00 <= code <= 0xD7AF:
            counts["ko"] += 1
        elif 0x4E00 <= code <= 0x9FFF:
            counts["zh"] += 1
        elif char.isalpha():
            counts["en"] += 1
    total = sum(counts.values()) or 1
    if counts["ja"] / total > 0.01:
        return "ja"
    for lang in ("ko", "zh"):
        if counts[lang] / total > 0.05:
            return lang
    return "en"


def _texts(session: ImportedSession) -> Iterator[str]:
    for event in session.events:
        yield from _strings(event["data"].get("content", ()))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def errors_by_group(
    sessions: list[ImportedSession], make: MeterFactory
) -> dict[tuple[str, str], list[float]]:
    """Percent error of every anchored call, by (agent, language)."""
    groups: dict[tuple[str, str], list[float]] = defaultdict(list)
    for session in sessions:
        ledger = MemoryLedger(clock=lambda: 0)
        ledger.append_many(session.session_id, list(session.events))
        group = groups[(session.agent, language(session))]
        reported_before = False
        for call in make(ledger).history(session.session_id):
            if reported_before and call.error is not None:
                group.append(call.error * 100)
            reported_before = reported_before or call.usage is not None
    return groups


def simulated_chats(corpus: Path, exact: TokenCounter, limit: int = 300) -> list[ImportedSession]:
    """Real Chinese chats (ShareGPT, no usage recorded) with usage simulated by an exact
    tokenizer: a stress test of pricing CJK deltas with a tokenizer far from the
    meter's counter. Not real traffic: printed apart, never in the table above."""
    path = corpus / "sharegpt-zh/data/sft/sharegpt_zh_1K_format.jsonl"
    if not path.is_file():
        return []
    sessions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        builder = SessionBuilder(f"sharegpt-{number}", f"simulated {exact.name}", "", "openai")
        prompt = 3  # the reply's priming tokens
        for turn in json.loads(line)["conversations"]:
            text, tokens = turn["value"], exact.count(turn["value"]) + 4
            if turn["from"] == "human":
                builder.user([{"type": "text", "text": text}])
            else:
                usage = {"input_tokens": prompt, "output_tokens": tokens}
                builder.call(f"call-{prompt}", "gpt", [{"type": "text", "text": text}], usage)
            prompt += tokens
        session = builder.build()
        if session.calls >= 2:
            sessions.append(session)
        if len(sessions) >= limit:
            break
    return sessions


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def row(name: str, errors: list[float], target: float | None) -> str:
    p95 = percentile(errors, 95)
    verdict = "" if target is None else ("ok" if p95 <= target else f"over {target}%")
    return (
        f"{name:<34} {len(errors):>6} {percentile(errors, 50):>7.2f} {p95:>7.2f} "
        f"{max(errors, default=float('nan')):>7.2f}  {verdict}"
    )


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    if not corpus.is_dir():
        print(f"no corpus at {corpus}; pass the transcripts folder")
        return
    started = time.perf_counter()
    sessions, unread = sessions_with_usage(corpus)
    calls = sum(s.calls_with_usage for s in sessions)
    print(
        f"{len(sessions)} sessions with usage, {calls} calls with usage "
        f"({unread} files in formats not covered; read in {time.perf_counter() - started:.1f} s)"
    )
    print("abs % error of the predicted prompt; scored: the calls after a session's first usage")
    print(f"{'meter / agent, language':<34} {'scored':>6} {'p50 %':>7} {'p95 %':>7} {'max %':>7}")
    for name, make in METERS:
        groups = errors_by_group(sessions, make)
        pooled = [e for errors in groups.values() for e in errors]
        print(row(name + " (pooled)", pooled, POOLED_P95))
        if name.startswith("TokenMeter"):
            for (agent, lang), errors in sorted(groups.items()):
                target = GROUP_P95 if len(errors) >= GROUP_MIN_CALLS else None
                print(row(f"    {agent}, {lang}", errors, target))
    try:
        exact = get_counter("tiktoken:cl100k_base")
    except CtxBudgetError as exc:  # the tiktoken extra is optional
        print(f"simulated usage skipped: {exc}")
        return
    chats = simulated_chats(corpus, exact)
    if chats:
        print("simulated usage (stress test, not real traffic):")
        for (agent, lang), errors in sorted(errors_by_group(chats, METERS[0][1]).items()):
            print(row(f"    {agent}, {lang} chats", errors, None))


if __name__ == "__main__":
    main()
