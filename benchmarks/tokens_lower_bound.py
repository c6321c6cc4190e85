"""A lower bound on a BPE count from its two-character tokens (``pair_floors``), measured.

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
below its share the larger of the two would lift to it, for two bounds: pairs of ASCII
characters only (an apostrophe next to a letter left out), and pairs of any characters.
Needs the ``dev`` extra (the four vocabularies).
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


def ascii_pair(a: str, b: str) -> bool:
    """Both ASCII, and not an apostrophe next to a letter (contractions cascade: "I've"
    is one token of o200k, built over "I" + "'ve")."""
    return a.isascii() and b.isascii() and not ("'" in (a, b) and (a + b).strip("'").isalpha())


def any_pair(a: str, b: str) -> bool:
    """Every pair (the bound over all characters)."""
    return True


BOUNDS: dict[str, Callable[[str, str], bool]] = {"ASCII pairs": ascii_pair, "any pairs": any_pair}


def lower_bound(text: str, tokens: Pairs, counted: Callable[[str, str], bool]) -> int:
    """One, plus the adjacent pairs ``counted`` accepts that are not in ``tokens``."""
    if not text:
        return 0
    return 1 + sum(1 for a, b in itertools.pairwise(text) if counted(a, b) and a + b not in tokens)


def ordinary_texts(corpus: str) -> list[str]:
    samples = read_corpus(corpus)[::2] + agent_text("check")[::2] + locale_text("check")
    return [s["text"] for s in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus")
    parser.add_argument("runs", nargs="*", default=["1500:1", "5000:11", "3000:12"])
    args = parser.parse_args()
    tokens = two_character_tokens()
    exact = vocabularies()
    texts = ordinary_texts(args.corpus)
    counts = [{name: count(t) for name, count in exact.items()} for t in texts]
    print(f"# ordinary texts: {len(texts)}; texts whose bound is above the exact count")
    for bound, counted in BOUNDS.items():
        above = {
            name: sum(
                lower_bound(text, tokens[name], counted) > count[name]
                for text, count in zip(texts, counts, strict=True)
            )
            for name in exact
        }
        print(f"  {bound:12s} " + ", ".join(f"{n} {k}" for n, k in above.items()))
    drawn: list[str] = []
    for run in args.runs:
        examples, at_seed = map(int, run.split(":"))
        drawn += tokens_guard.draw(examples, at_seed)
    drawn = list(dict.fromkeys(drawn))  # a text two seeds drew is counted once
    below = tokens_guard.failures(drawn)
    vocabulary_of = {profile: vocabulary for vocabulary, profile in PROFILE_OF.items()}
    print(f"\n# drawn texts below the share ({len(drawn)} distinct), lifted by the bound")
    for bound, counted in BOUNDS.items():
        lifted = []
        for profile, found in below.items():
            counter = CalibratedCounter(profile)
            names = list(exact) if profile == "generic" else [vocabulary_of[profile]]
            share = GENERIC_SHARE if profile == "generic" else OWN_SHARE
            fixed = 0
            for _, text in found:
                truth = max(exact[n](text) for n in names)
                bounded = max(lower_bound(text, tokens[n], counted) for n in names)
                fixed += max(counter.count(text), bounded) >= math.floor(share * truth)
            lifted.append(f"{profile} {fixed} of {len(found)}")
        print(f"  {bound:12s} " + ", ".join(lifted))


if __name__ == "__main__":
    main()
