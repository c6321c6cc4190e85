"""Adjacent ideographs no token of a vocabulary holds: where Chinese text is split.

A vocabulary merges the ideographs of the words it learned ("中华", "人民"), and
nothing else: two adjacent ideographs that no token of it holds are a token boundary
of it wherever they stand. How many such pairs a text has tells running prose (mostly
learned words) from classical verse or names (mostly not) far better than a price per
character does: DeepSeek V4's and Qwen's profiles counted Tang and Song verse 15-18 %
under when only the characters were priced.

``han_pair_table`` turns each vocabulary's learned pairs (``han_pairs`` in
``data/feature_tables.json``, written by ``benchmarks/tokens_tables.py`` from the
tokens of the four vocabularies) into a sorted table of pair keys, each with a bit per
vocabulary that learned it. ``reference_unlearned_han_pairs`` counts, per vocabulary,
the adjacent pairs of U+4E00-U+9FFF ideographs of a text that it did not learn; where
the package was built with its C extension (``ctxbudget.tokens._neighbours``) the same
counts come from one pass in C over a hash table of the keys
(``tests/tokens/test_han_pairs.py`` holds the two to the same counts).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from array import array
from collections.abc import Callable, Sequence
from typing import Final

from ctxbudget.tokens.neighbours import compiled_extension

__all__ = [
    "HAN_FIRST",
    "HAN_LAST",
    "HanPairCounts",
    "han_pair_key",
    "han_pair_table",
    "reference_unlearned_han_pairs",
    "unlearned_han_pairs_counter",
]

HAN_FIRST: Final = 0x4E00
HAN_LAST: Final = 0x9FFF
"""The ideographs whose pairs are looked up: the main block of CJK Unified Ideographs."""

_HAN_RUN: Final = re.compile(f"[{chr(HAN_FIRST)}-{chr(HAN_LAST)}]{{2,}}")
_MOST_VOCABULARIES: Final = 8  # the bits of a byte


def han_pair_key(first: str, second: str) -> int:
    """The key of two adjacent ideographs of ``HAN_FIRST``-``HAN_LAST``: 15 bits each."""
    return (ord(first) - HAN_FIRST) << 15 | (ord(second) - HAN_FIRST)


def han_pair_table(learned: Sequence[str]) -> tuple[bytes, bytes]:
    """The keys (``han_pair_key``, sorted, as unsigned 32-bit numbers in this machine's
    order) of every pair some vocabulary learned, and for each a byte with bit ``v`` set
    where vocabulary ``v`` did. ``learned``: per vocabulary, its pairs concatenated (two
    ideographs each, at most 8 vocabularies)."""
    if len(learned) > _MOST_VOCABULARIES:
        raise ValueError(f"at most {_MOST_VOCABULARIES} vocabularies, got {len(learned)}")
    masks: dict[int, int] = {}
    for bit, pairs in enumerate(learned):
        if len(pairs) % 2:
            raise ValueError(f"vocabulary {bit}'s pairs are not two ideographs each")
        for i in range(0, len(pairs), 2):
            first, second = pairs[i], pairs[i + 1]
            if not all(HAN_FIRST <= ord(c) <= HAN_LAST for c in (first, second)):
                raise ValueError(f"{first + second!r} is not a pair of U+4E00-U+9FFF")
            key = han_pair_key(first, second)
            masks[key] = masks.get(key, 0) | 1 << bit
    keys = sorted(masks)
    return array("I", keys).tobytes(), bytes(masks[key] for key in keys)


def reference_unlearned_han_pairs(
    keys: bytes, masks: bytes, vocabularies: int, data: bytes
) -> tuple[int, ...]:
    """Per vocabulary (bit of ``masks``, ``han_pair_table``), the adjacent pairs of
    U+4E00-U+9FFF ideographs in ``data`` (UTF-8, surrogates allowed) that it did not
    learn. The definition ``unlearned_han_pairs_counter`` computes in C."""
    table = array("I")
    table.frombytes(keys)
    found = [0] * (_MOST_VOCABULARIES + 1)  # pairs, then pairs learned per vocabulary
    for run in _HAN_RUN.findall(data.decode("utf-8", "surrogatepass")):
        for first, second in itertools.pairwise(run):
            found[-1] += 1
            key = han_pair_key(first, second)
            at = bisect.bisect_left(table, key)
            mask = masks[at] if at < len(table) and table[at] == key else 0
            for v in range(vocabularies):
                found[v] += mask >> v & 1
    return tuple(found[-1] - found[v] for v in range(vocabularies))


HanPairCounts = Callable[[bytes], tuple[int, ...]]
"""A function of ``data`` to ``reference_unlearned_han_pairs``' counts, for one table."""


def unlearned_han_pairs_counter(keys: bytes, masks: bytes, vocabularies: int) -> HanPairCounts:
    """``reference_unlearned_han_pairs`` for one table, computed by the C extension
    where it is built (a hash table of the keys, read in one pass)."""
    if len(keys) != 4 * len(masks) or not 0 <= vocabularies <= _MOST_VOCABULARIES:
        raise ValueError("a key of 4 bytes a mask, and 0 to 8 vocabularies")
    extension = compiled_extension(warn=False)  # neighbours warned at import already
    if extension is None:
        return functools.partial(reference_unlearned_han_pairs, keys, masks, vocabularies)
    counts: HanPairCounts = extension.HanPairs(keys, masks, vocabularies).counts
    return counts
