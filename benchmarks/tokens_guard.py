"""How often the guard property fails: draws of its strategy, counted per profile.

    .venv/bin/python benchmarks/tokens_guard.py [EXAMPLES:SEED ...] [--show N]

Draws ``ANY_TEXT`` (the strategy of ``tests/tokens/test_guard.py``: arbitrary Unicode,
every block, invisible, combining and private-use characters, white-space runs,
repeated units, base64, hex) with Hypothesis seeded, and counts the distinct texts that
``generic`` prices below 90 % of the largest of the four exact counts, or a specific
profile below 88 % of its own tokenizer's (rounded down, as the test does). ``--show N``
prints the N worst of each profile. ``--adversarial`` also counts the (text, profile)
pairs below the share on the generated adversarial texts ``benchmarks/accuracy.py``
checks (``tokens_corpus.adversarial_text("check")``). Needs the ``dev`` extra (the four
vocabularies).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "tokens"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_guard
from hypothesis import HealthCheck, given, seed, settings

from ctxbudget.tokens import CalibratedCounter
from tokens_corpus import adversarial_text

PROFILES = ("generic", *test_guard.PROFILE_OF.values())


def draw(examples: int, at_seed: int) -> list[str]:
    """Distinct texts of ``examples`` draws of the property's strategy."""
    texts: list[str] = []

    @seed(at_seed)
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(test_guard.ANY_TEXT)
    def collect(text: str) -> None:
        texts.append(text)

    collect()
    return list(dict.fromkeys(texts))


def failures(texts: list[str]) -> dict[str, list[tuple[float, str]]]:
    """Per profile, (count / its truth, text) of the texts priced below the share."""
    vocabularies = test_guard.vocabularies()
    counters = {name: CalibratedCounter(name) for name in PROFILES}
    found: dict[str, list[tuple[float, str]]] = {name: [] for name in PROFILES}
    for text in texts:
        exact = {name: count(text) for name, count in vocabularies.items()}
        truth = {"generic": (max(exact.values()), test_guard.GENERIC_SHARE)}
        for vocabulary, profile in test_guard.PROFILE_OF.items():
            truth[profile] = (exact[vocabulary], test_guard.OWN_SHARE)
        for name, (count, share) in truth.items():
            counted = counters[name].count(text)
            if counted < math.floor(share * count):
                found[name].append((counted / count, text))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="*", default=["1500:1", "5000:11", "3000:12"])
    parser.add_argument("--show", type=int, default=0, help="the N worst texts of each profile")
    parser.add_argument(
        "--adversarial", action="store_true", help="also the generated adversarial check texts"
    )
    args = parser.parse_args()
    for run in args.runs:
        examples, _, at_seed = run.partition(":")
        texts = draw(int(examples), int(at_seed or 0))
        found = failures(texts)
        union = {text for pairs in found.values() for _, text in pairs}
        per_profile = ", ".join(
            f"{name} {len(pairs)} ({100 * len(pairs) / len(texts):.1f} %)"
            for name, pairs in found.items()
        )
        print(f"{examples} draws, seed {at_seed}: {len(texts)} texts, {len(union)} below")
        print(f"  {per_profile}")
        for name, pairs in found.items():
            for ratio, text in sorted(pairs)[: args.show]:
                print(f"  {name:12s} {ratio:.2f} {text[:80]!r}")
    if args.adversarial:
        texts = [sample["text"] for sample in adversarial_text("check")]
        below = sum(map(len, failures(texts).values()))
        print(f"adversarial check texts: {below} of {len(texts) * len(PROFILES)} (text, profile)")


if __name__ == "__main__":
    main()
