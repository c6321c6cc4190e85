"""Adjacent characters no token of a vocabulary holds: where text beyond ASCII is split.

A vocabulary merges the characters of the words it learned ("中华", "人民", "ます",
"ни", "का"), and nothing else: two adjacent characters that no token of it holds are a
token boundary of it wherever they stand. How many such pairs a text has tells running
prose (mostly learned words) from classical verse, names or random characters (mostly
not) far better than a price per character does: DeepSeek V4's and Qwen's profiles
counted Tang and Song verse 15-18 % under when only the characters were priced, and
random katakana words 14-36 % under. A character between two pairs a vocabulary did not
learn (a **lone** character) is a token of its own in it: nearly every character of
random kana is one, few of prose.

Each set of characters is paired apart (a pair of characters of two sets is not looked
up: Japanese writes kana after kanji at every word), with features of its own
(``ctxbudget.tokens.features``): the main block of Han ideographs (``HAN_IDEOGRAPHS``);
kana, CJK symbols and punctuation and the fullwidth, halfwidth, vertical and small
forms (``KANA_AND_FORMS``); the Hangul syllables (``HANGUL_SYLLABLES``: cl100k's tokens
hold 64 pairs of them, nearly all of the words of software, "사용", "데이터", "니다", so a
price per syllable fitted on translated menus and man pages came out 24 % under everyday
Korean); and the two-byte characters (``TWO_BYTE``: Latin beyond ASCII, Greek,
Cyrillic, Armenian, Hebrew, Arabic...) and the scripts of U+0800-U+1FFF
(``SCRIPTS_BEYOND_TWO_BYTES``: Indic, Thai, Georgian, Khmer...), whose pairs are looked
up among those any vocabulary learned.

``learned_pair_table`` turns each vocabulary's learned pairs of each set (``han_pairs``,
``kana_pairs``, ``hangul_pairs`` and ``mergeable_pairs`` in ``data/feature_tables.json``,
written by ``benchmarks/tokens_tables.py`` from the tokens of the four vocabularies) into one
sorted table of pair keys, each with a bit per vocabulary that learned it, and a map of
each code point to its set. ``reference_unlearned_pairs`` counts, per set and
vocabulary, the adjacent pairs of the set's characters in a text that it did not learn,
and the lone characters; where the package was built with its C extension
(``ctxbudget.tokens._neighbours``) the same counts come from one pass in C over a hash
table of the keys, every set at once (``tests/tokens/test_learned_pairs.py`` holds the
two to the same counts).
"""

from __future__ import annotations

import bisect
import functools
import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from ctxbudget.tokens.neighbours import compiled_extension

__all__ = [
    "HANGUL_SYLLABLES",
    "HAN_IDEOGRAPHS",
    "KANA_AND_FORMS",
    "SCRIPTS_BEYOND_TWO_BYTES",
    "TWO_BYTE",
    "CodeRanges",
    "LearnedPairTable",
    "UnlearnedPairCounts",
    "learned_pair_table",
    "pair_key",
    "reference_unlearned_pairs",
    "unlearned_pairs_counter",
]

CodeRanges = tuple[tuple[int, int], ...]
"""Inclusive ranges of code points of the Basic Multilingual Plane beyond ASCII, each
two or three UTF-8 bytes (U+0080-U+FFFF, surrogates excluded)."""

HAN_IDEOGRAPHS: Final[CodeRanges] = ((0x4E00, 0x9FFF),)
"""The main block of CJK Unified Ideographs."""
KANA_AND_FORMS: Final[CodeRanges] = (
    (0x3000, 0x30FF),  # CJK symbols and punctuation, hiragana, katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0xFE10, 0xFE1F),  # vertical forms
    (0xFE30, 0xFE6F),  # CJK compatibility forms, small form variants
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
)
"""The kana, CJK symbols and forms of East Asian text a vocabulary learns in pairs."""
HANGUL_SYLLABLES: Final[CodeRanges] = ((0xAC00, 0xD7A3),)
"""The precomposed Hangul syllables of Korean text."""
TWO_BYTE: Final[CodeRanges] = ((0x80, 0x7FF),)
"""The characters of two UTF-8 bytes."""
SCRIPTS_BEYOND_TWO_BYTES: Final[CodeRanges] = ((0x800, 0x1FFF),)
"""Indic, Thai, Tibetan, Georgian, Khmer, Ethiopic and the other scripts of three UTF-8
bytes before General Punctuation."""

_MOST_VOCABULARIES: Final = 8  # the bits of a byte
_MOST_SETS: Final = 5
_PLANE: Final = 0x10000


@dataclass(frozen=True)
class LearnedPairTable:
    """The learned pairs of some sets of characters, for ``unlearned_pairs_counter``.

    ``keys``: every pair some vocabulary learned (``pair_key``, sorted, as unsigned
    32-bit numbers in this machine's order); ``masks``: for each, a byte with bit ``v``
    set where vocabulary ``v`` did; ``members``: a byte per code point of the Basic
    Multilingual Plane, the number of its set (1 on; 0: in none)."""

    keys: bytes
    masks: bytes
    vocabularies: int
    members: bytes
    sets: int

    def __post_init__(self) -> None:
        if len(self.keys) != 4 * len(self.masks):
            raise ValueError("a key of 4 bytes a mask")
        if not 0 <= self.vocabularies <= _MOST_VOCABULARIES:
            raise ValueError(f"0 to {_MOST_VOCABULARIES} vocabularies")
        if not 1 <= self.sets <= _MOST_SETS:
            raise ValueError(f"1 to {_MOST_SETS} sets of characters")
        if len(self.members) != _PLANE or max(self.members) > self.sets:
            raise ValueError(
                f"members names a set (0 to {self.sets}) for each of {_PLANE} code points"
            )


def pair_key(first: str, second: str) -> int:
    """The key of two adjacent characters: 16 bits each."""
    return ord(first) << 16 | ord(second)


def learned_pair_table(sets: Sequence[tuple[CodeRanges, Sequence[str]]]) -> LearnedPairTable:
    """The table of some sets of characters, each given as its ranges and, per
    vocabulary, the pairs of its characters that vocabulary learned, concatenated (two
    characters each; the same vocabularies, at most 8, for every set)."""
    if not 1 <= len(sets) <= _MOST_SETS:
        raise ValueError(f"1 to {_MOST_SETS} sets of characters, got {len(sets)}")
    members = bytearray(_PLANE)
    masks: dict[int, int] = {}
    vocabularies = len(sets[0][1])
    for number, (ranges, learned) in enumerate(sets, 1):
        if len(learned) > _MOST_VOCABULARIES or len(learned) != vocabularies:
            raise ValueError(f"the same vocabularies, at most {_MOST_VOCABULARIES}, for every set")
        _add_members(members, ranges, number)
        member = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]")
        for bit, pairs in enumerate(learned):
            if len(pairs) % 2:
                raise ValueError(f"vocabulary {bit}'s pairs are not two characters each")
            for i in range(0, len(pairs), 2):
                first, second = pairs[i], pairs[i + 1]
                if not (member.fullmatch(first) and member.fullmatch(second)):
                    raise ValueError(f"{first + second!r} is not a pair of {_spelled(ranges)}")
                key = pair_key(first, second)
                masks[key] = masks.get(key, 0) | 1 << bit
    keys = sorted(masks)
    return LearnedPairTable(
        keys=array("I", keys).tobytes(),
        masks=bytes(masks[key] for key in keys),
        vocabularies=vocabularies,
        members=bytes(members),
        sets=len(sets),
    )


def reference_unlearned_pairs(table: LearnedPairTable, data: bytes) -> tuple[int, ...]:
    """Per set of ``table`` (in order), per vocabulary (bit of its masks) the adjacent
    pairs of the set's characters in ``data`` (UTF-8, surrogates allowed) that it did not
    learn; then, per vocabulary, the characters **between two such pairs**, which that
    vocabulary cannot join to either neighbour: a token of their own, or more. The
    definition ``unlearned_pairs_counter`` computes in C."""
    keys = array("I")
    keys.frombytes(table.keys)
    n = table.vocabularies
    found = [0] * (2 * n * table.sets)
    previous = ""  # the paired character before, if the one before this
    before: tuple[bool, ...] = ()  # per vocabulary: whether it did not learn the pair before
    for character in data.decode("utf-8", "surrogatepass"):
        code = ord(character)
        number = table.members[code] if code < _PLANE else 0
        if not (previous and number and table.members[ord(previous)] == number):
            # No pair: a character of no set, of another set, or the first of a run.
            previous, before = (character if number else ""), ()
            continue
        key = pair_key(previous, character)
        at = bisect.bisect_left(keys, key)
        mask = table.masks[at] if at < len(keys) and keys[at] == key else 0
        now = tuple(not mask >> v & 1 for v in range(n))
        out = 2 * n * (number - 1)
        for v in range(n):
            found[out + v] += now[v]
            found[out + n + v] += bool(before) and now[v] and before[v]
        previous, before = character, now
    return tuple(found)


UnlearnedPairCounts = Callable[[bytes], tuple[int, ...]]
"""A function of ``data`` to ``reference_unlearned_pairs``' counts, for one table:
per set, its unlearned pairs per vocabulary, then its lone characters per vocabulary."""


def unlearned_pairs_counter(table: LearnedPairTable) -> UnlearnedPairCounts:
    """``reference_unlearned_pairs`` for ``table``, computed by the C extension where
    it is built (a hash table of the keys, read in one pass for every set)."""
    extension = compiled_extension(warn=False)  # neighbours warned at import already
    if extension is None:
        return functools.partial(reference_unlearned_pairs, table)
    counts: UnlearnedPairCounts = extension.LearnedPairs(
        table.keys, table.masks, table.vocabularies, table.members, table.sets
    ).counts
    return counts


def _add_members(members: bytearray, ranges: CodeRanges, number: int) -> None:
    for first, last in ranges:
        if not 0x80 <= first <= last <= 0xFFFF or (first <= 0xDFFF and last >= 0xD800):
            raise ValueError(
                f"U+{first:04X}-U+{last:04X} is not a range of two- or three-byte "
                "characters (U+0080-U+FFFF, surrogates excluded)"
            )
        if any(members[first : last + 1]):
            raise ValueError(f"U+{first:04X}-U+{last:04X} is in two sets")
        members[first : last + 1] = bytes([number]) * (last - first + 1)


def _spelled(ranges: CodeRanges) -> str:
    return ", ".join(f"U+{a:04X}-U+{b:04X}" for a, b in ranges)
