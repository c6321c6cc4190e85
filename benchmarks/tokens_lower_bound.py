"""A lower bound on a BPE count from the pairs its tokens span (``pair_floors``), measured.

    .venv/bin/python benchmarks/tokens_lower_bound.py CORPUS_DIR [EXAMPLES:SEED ...]

BPE starts from single bytes and only ever merges two adjacent tokens into a token of
the vocabulary, so the boundary between two characters survives unless some token spans
it: where the pair is not itself a token, only a longer token built over it (a cascade,
"'" + "ve" -> "'ve") can. Counting the adjacent pairs that are no two-character token of
a vocabulary, plus one, is then a count the tokenizer seldom goes below, and the larger
of it and a calibrated estimate can only move that estimate toward the truth where the
bound holds. This prints, per vocabulary, on ordinary text (CORPUS_DIR, built by
``../shared/eval/build_corpus.py dev``, plus the ``"check"`` halves of agent traffic and
translation catalogs) how often the bound is above the exact count, and how many of the
texts the guard property's strategy draws (``tokens_guard.py``) that a profile prices
below its share the larger of the two would lift to it, for two bounds: the shipped one
(``pair_floors``: pairs of ASCII characters that are no two-character token, an
apostrophe next to a letter and a capital after a lower-case letter left out, and pairs
of bytes beyond ASCII that no token spans), which the profiles' counts already hold, and
pairs of any characters that are no two-character token. Needs the ``dev`` extra (the
four vocabularies).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "tokens"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_guard import GENERIC_SHARE, OWN_SHARE, PROFILE_OF, vocabularies

import tokens_guard
from ctxbudget.tokens import CalibratedCounter
from ctxbudget.tokens.features import FLOOR_VOCABULARIES, pair_floors
from tokens_corpus import agent_text, locale_text, read_corpus
from tokens_tables import vocabulary_pieces

Pairs = frozenset[str]


def two_character_tokens() -> dict[str, Pairs]:
    """Per vocabulary (``test_guard.vocabularies`` names), its tokens of exactly two
    whole characters."""
    return {
        name: frozenset(piece for piece in pieces if len(piece) == 2)
        for name, pieces in vocabulary_pieces().items()
    }


def any_pairs_bound(tokens: dict[str, Pairs]) -> Callable[[str, str], int]:
    """The bound over pairs of any characters: one, plus the adjacent pairs of ``text``
    that are not in the vocabulary's ``tokens``."""

    def bound(text: str, vocabulary: str) -> int:
        if not text:
            return 0
        own = tokens[vocabulary]
        return 1 + sum(1 for a, b in itertools.pairwise(text) if a + b not in own)

    return bound


def shipped_bound(text: str, vocabulary: str) -> int:
    """``pair_floors``, the bound the guard and each tokenizer's profile keep."""
    return pair_floors(text)[FLOOR_VOCABULARIES.index(vocabulary)]


def ordinary_texts(corpus: str) -> list[str]:
    samples = read_corpus(corpus)[::2] + agent_text("check")[::2] + locale_text("check")
    return [s["text"] for s in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("runs", nargs="*", default=["1500:1", "5000:11", "3000:12"])
    args = parser.parse_args()
    bounds = {"shipped": shipped_bound, "any pairs": any_pairs_bound(two_character_tokens())}
    exact = vocabularies()
    texts = ordinary_texts(args.corpus)
    counts = [{name: count(t) for name, count in exact.items()} for t in texts]
    print(f"# ordinary texts: {len(texts)}; texts whose bound is above the exact count")
    for label, bound in bounds.items():
        above = {
            name: sum(
                bound(text, name) > count[name] for text, count in zip(texts, counts, strict=True)
            )
            for name in exact
        }
        print(f"  {label:12s} " + ", ".join(f"{n} {k}" for n, k in above.items()))
    drawn: list[str] = []
    for run in args.runs:
        examples, at_seed = map(int, run.split(":"))
        drawn += tokens_guard.draw(examples, at_seed)
    drawn = list(dict.fromkeys(drawn))  # a text two seeds drew is counted once
    below = tokens_guard.failures(drawn)
    vocabulary_of = {profile: vocabulary for vocabulary, profile in PROFILE_OF.items()}
    print(f"\n# drawn texts below the share ({len(drawn)} distinct), lifted by the bound")
    for label, bound in bounds.items():
        lifted = []
        for profile, found in below.items():
            counter = CalibratedCounter(profile)
            names = list(exact) if profile == "generic" else [vocabulary_of[profile]]
            share = GENERIC_SHARE if profile == "generic" else OWN_SHARE
            fixed = 0
            for _, text in found:
                truth = max(exact[n](text) for n in names)
                bounded = max(bound(text, n) for n in names)
                fixed += max(counter.count(text), bounded) >= math.floor(share * truth)
            lifted.append(f"{profile} {fixed} of {len(found)}")
        print(f"  {label:12s} " + ", ".join(lifted))


if __name__ == "__main__":
    main()
