"""How the calibrated profiles count the rule lines of Markdown tables, per style.

    .venv/bin/python benchmarks/table_rules.py [RULES_PER_STYLE]

Answers that hold a table hold a rule line under its header. Most rules in the
transcripts of ../shared are dashes as wide as their columns (``|------|---------|``:
1,074 of 1,140); the others are three dashes a column (``|---|---|``), spaced
(``| --- |``) or aligned by colons (``|:---|---:|``). For each style this draws rules of
2-7 columns (seeded), each a line of its own, and prints per profile the bias of the
summed count against its own tokenizer and the lowest share of one rule's count. Needs
the ``dev`` extra (the four vocabularies) and ../shared (for its tokenizers).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import CalibratedCounter
from tokens_fit import OWN_TOKENIZER, reference_counters

STYLES: dict[str, Callable[[random.Random, int], str]] = {
    "wide (4-24 dashes)": lambda rng, n: (
        "|" + "|".join("-" * rng.randint(4, 24) for _ in range(n)) + "|"
    ),
    "three dashes": lambda rng, n: "|" + "---|" * n,
    "spaced": lambda rng, n: "|" + " --- |" * n,
    "aligned by colons": lambda rng, n: (
        "|" + "|".join(rng.choice((":---", "---:", ":---:")) for _ in range(n)) + "|"
    ),
}


def main() -> None:
    per_style = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    exact = reference_counters()
    profiles = {name: CalibratedCounter(name) for name in OWN_TOKENIZER}
    print(f"# {per_style} rules a style, each between two newlines: summed bias % / lowest share %")
    print(f"  {'style':20s}" + "".join(f"{name:>18s}" for name in profiles))
    for style, rule in STYLES.items():
        rng = random.Random(5)
        texts = [f"\n{rule(rng, rng.randint(2, 7))}\n" for _ in range(per_style)]
        cells = []
        for name, counter in profiles.items():
            truth = [exact[OWN_TOKENIZER[name]](text) for text in texts]
            ours = [counter.count(text) for text in texts]
            bias = 100 * (sum(ours) / sum(truth) - 1)
            lowest = 100 * min(o / t for o, t in zip(ours, truth, strict=True))
            cells.append(f"{bias:+7.1f} / {lowest:4.0f}")
        print(f"  {style:20s}" + "".join(f"{cell:>18s}" for cell in cells))


if __name__ == "__main__":
    main()
