"""Adjacent CJK characters no token of a vocabulary holds: where East Asian text is split.

A vocabulary merges the characters of the words it learned ("中华", "人民", "ます"),
and nothing else: two adjacent characters that no token of it holds are a token
boundary of it wherever they stand. How many such pairs a text has tells running prose
(mostly learned words) from classical verse, names or random characters (mostly not)
far better than a price per character does: DeepSeek V4's and Qwen's profiles counted
Tang and Song verse 15-18 % under when only the characters were priced, and random
katakana words 14-36 % under. A character between two pairs a vocabulary did not
learn (a **lone** character) is a token of its own in it: nearly every character of
random kana is one, few of prose.

Two sets of characters are paired, each in a table of its own (and features of its
own, ``ctxbudget.tokens.features``): the main block of Han ideographs
(``HAN_IDEOGRAPHS``), and kana and the fullwidth, halfwidth, vertical and small forms
(``KANA_AND_FORMS``). A pair of one character of each set is not looked up: Japanese
writes kana after kanji at every word. Not Hangul, whose random syllables the prices of
Korean prose already count in full, nor CJK punctuation: pairs of them moved the
profiles' prices of Korean and of Chinese verse by 1-2 points.

``cjk_pair_table`` turns each vocabulary's learned pairs of one set (``han_pairs`` and
``kana_pairs`` in ``data/feature_tables.json``, written by
``benchmarks/tokens_tables.py`` from the tokens of the four vocabularies) into a sorted
table of pair keys, each with a bit per vocabulary that learned it.
``reference_unlearned_cjk_pairs`` counts, per vocabulary, the adjacent pairs of the
set's characters in a text that it did not learn; where the package was built with its C
extension (``ctxbudget.tokens._neighbours``) the same counts come from one pass in C over
a hash table of the keys (``tests/tokens/test_cjk_pairs.py`` holds the two to the same
counts).
"""

from __future__ import annotations

import bisect
import functools
import re
from array import array
from collections.abc import Callable, Sequence
from typing import Final

from ctxbudget.tokens.neighbours import compiled_extension

__all__ = [
    "HAN_IDEOGRAPHS",
    "KANA_AND_FORMS",
    "CjkPairCounts",
    "cjk_pair_key",
    "cjk_pair_table",
    "members_bitmap",
    "reference_unlearned_cjk_pairs",
    "unlearned_cjk_pairs_counter",
]

CodeRanges = tuple[tuple[int, int], ...]
"""Inclusive ranges of code points of the Basic Multilingual Plane, each three UTF-8
bytes (U+0800-U+FFFF)."""

HAN_IDEOGRAPHS: Final[CodeRanges] = ((0x4E00, 0x9FFF),)
"""The main block of CJK Unified Ideographs."""
KANA_AND_FORMS: Final[CodeRanges] = (
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE6F),  # CJK compatibility forms, small form variants
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
)
"""The kana and the forms of East Asian text a vocabulary learns in pairs."""

_MOST_VOCABULARIES: Final = 8  # the bits of a byte
_BITMAP_BYTES: Final = 0x10000 // 8


def members_bitmap(ranges: CodeRanges) -> bytes:
    """A bit per code point of the Basic Multilingual Plane, set for those of ``ranges``
    (bit ``c & 7`` of byte ``c >> 3``)."""
    bits = bytearray(_BITMAP_BYTES)
    for first, last in ranges:
        if not 0x800 <= first <= last <= 0xFFFF or (first <= 0xDFFF and last >= 0xD800):
            raise ValueError(
                f"U+{first:04X}-U+{last:04X} is not a range of three-byte characters "
                "(U+0800-U+FFFF, surrogates excluded)"
            )
        for code in range(first, last + 1):
            bits[code >> 3] |= 1 << (code & 7)
    return bytes(bits)


def cjk_pair_key(first: str, second: str) -> int:
    """The key of two adjacent characters: 16 bits each."""
    return ord(first) << 16 | ord(second)


def cjk_pair_table(learned: Sequence[str], ranges: CodeRanges) -> tuple[bytes, bytes]:
    """The keys (``cjk_pair_key``, sorted, as unsigned 32-bit numbers in this machine's
    order) of every pair some vocabulary learned, and for each a byte with bit ``v`` set
    where vocabulary ``v`` did. ``learned``: per vocabulary, its pairs concatenated (two
    characters of ``ranges`` each, at most 8 vocabularies)."""
    if len(learned) > _MOST_VOCABULARIES:
        raise ValueError(f"at most {_MOST_VOCABULARIES} vocabularies, got {len(learned)}")
    member = _member_pattern(ranges)
    masks: dict[int, int] = {}
    for bit, pairs in enumerate(learned):
        if len(pairs) % 2:
            raise ValueError(f"vocabulary {bit}'s pairs are not two characters each")
        for i in range(0, len(pairs), 2):
            first, second = pairs[i], pairs[i + 1]
            if not (member.fullmatch(first) and member.fullmatch(second)):
                raise ValueError(f"{first + second!r} is not a pair of {_spelled(ranges)}")
            key = cjk_pair_key(first, second)
            masks[key] = masks.get(key, 0) | 1 << bit
    keys = sorted(masks)
    return array("I", keys).tobytes(), bytes(masks[key] for key in keys)


def reference_unlearned_cjk_pairs(
    keys: bytes, masks: bytes, vocabularies: int, members: bytes, data: bytes
) -> tuple[int, ...]:
    """Per vocabulary (bit of ``masks``, ``cjk_pair_table``), the adjacent pairs of the
    characters ``members`` holds (``members_bitmap``) in ``data`` (UTF-8, surrogates
    allowed) that it did not learn; then, per vocabulary, the characters **between two
    such pairs**, which that vocabulary cannot join to either neighbour: a token of their
    own, or more. The definition ``unlearned_cjk_pairs_counter`` computes in C."""
    table = array("I")
    table.frombytes(keys)
    unlearned = [0] * vocabularies
    lone = [0] * vocabularies
    previous = ""  # the paired character before, if the one before this
    before: tuple[bool, ...] = ()  # per vocabulary: whether it did not learn the pair before
    for character in data.decode("utf-8", "surrogatepass"):
        code = ord(character)
        if code > 0xFFFF or not members[code >> 3] >> (code & 7) & 1:
            previous, before = "", ()
            continue
        if previous:
            key = cjk_pair_key(previous, character)
            at = bisect.bisect_left(table, key)
            mask = masks[at] if at < len(table) and table[at] == key else 0
            now = tuple(not mask >> v & 1 for v in range(vocabularies))
            for v in range(vocabularies):
                unlearned[v] += now[v]
                lone[v] += bool(before) and now[v] and before[v]
            before = now
        previous = character
    return (*unlearned, *lone)


CjkPairCounts = Callable[[bytes], tuple[int, ...]]
"""A function of ``data`` to ``reference_unlearned_cjk_pairs``' counts, for one table:
its unlearned pairs per vocabulary, then its lone characters per vocabulary."""


def unlearned_cjk_pairs_counter(
    keys: bytes, masks: bytes, vocabularies: int, members: bytes
) -> CjkPairCounts:
    """``reference_unlearned_cjk_pairs`` for one table, computed by the C extension
    where it is built (a hash table of the keys, read in one pass)."""
    if len(keys) != 4 * len(masks) or not 0 <= vocabularies <= _MOST_VOCABULARIES:
        raise ValueError("a key of 4 bytes a mask, and 0 to 8 vocabularies")
    if len(members) != _BITMAP_BYTES:
        raise ValueError(f"members is a bitmap of {_BITMAP_BYTES} bytes (members_bitmap)")
    extension = compiled_extension(warn=False)  # neighbours warned at import already
    if extension is None:
        return functools.partial(reference_unlearned_cjk_pairs, keys, masks, vocabularies, members)
    counts: CjkPairCounts = extension.CjkPairs(keys, masks, vocabularies, members).counts
    return counts


def _member_pattern(ranges: CodeRanges) -> re.Pattern[str]:
    return re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]")


def _spelled(ranges: CodeRanges) -> str:
    return ", ".join(f"U+{a:04X}-U+{b:04X}" for a, b in ranges)
