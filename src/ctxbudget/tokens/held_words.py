"""Words the vocabularies hold whole after a space, priced by what each spends on them.

A vocabulary learned far more words than the common-word table holds (the words all
of cl100k, DeepSeek V4 and Qwen spend one token on, ``ctxbudget.tokens.words``): o200k
spends one token on `` fichier``, `` données``, `` não``, `` possível``, `` getattr``.
The other features price such a word by its letters, as they must price a word no
vocabulary knows, and a letter beyond ASCII at a floor of what it costs where nothing
merges (random letters, ``"\\u0301" * 1000``), so that no text can hide its cost from
the guard: priced so, Portuguese man pages came out 7-8 % over o200k's count, their
words with an accented letter 38-80 % over and their ASCII words 9-10 %.

A word of the table (``held_words`` in ``data/feature_tables.json``: every word of Latin,
Greek or Russian's Cyrillic letters some vocabulary holds as one token after a space,
but the common words and single ASCII letters, with what each of the four spends on it
there, measured by ``benchmarks/tokens_tables.py``) is priced by what is known of it:
``stand_in`` writes
a common English word in its place, which every vocabulary spends one token on and the
word features price as such, and counts per vocabulary the tokens it spends beyond that
one (``HELD_COUNT_NAMES``). The stand-in keeps the word's place: the space before it and
whatever follows are priced as around any word, where cutting the word out would join
its neighbours (``"\\n é" * 1000`` would become a run of newlines, which merges).

Only a word written after a space is looked up, and only a whole one: of ASCII letters,
followed by the end or an ASCII character that is no letter; with a letter beyond ASCII,
followed by no letter of any script and no combining mark. The pre-tokenizers of the
four vocabularies make such a word one piece with its space, so what it costs alone is
what it costs in the text. A word after a mark or a line break is left to the other
features: ``"_å"`` is two tokens where ``" å"`` is one.

The words of ASCII letters are looked up in one pass in C (``HeldWords`` of the
package's extension, where it was built; ``reference_ascii_stand_in`` defines it, and
the test suite holds the two to the same answer); those with a letter beyond ASCII,
rarer, by one regular expression, only in text whose UTF-8 holds one of their lead
bytes.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from ctxbudget.tokens.neighbours import compiled_extension
from ctxbudget.tokens.words import SNAKE_VOCABULARIES

__all__ = [
    "HELD_COUNT_NAMES",
    "HELD_VOCABULARIES",
    "STAND_IN",
    "WORD_LETTERS",
    "HeldWords",
    "reference_ascii_stand_in",
]

HELD_VOCABULARIES: Final = SNAKE_VOCABULARIES
"""The vocabularies of the table's costs, in order: those whose words the word features
ask about (cl100k, o200k, DeepSeek V4, Qwen)."""

HELD_COUNT_NAMES: Final = (
    *(f"held_word_extra_tokens_{vocabulary}" for vocabulary in HELD_VOCABULARIES),
    "held_word_extra_tokens_most",
)
"""The counts of ``HeldWords.stand_in``: per vocabulary, the tokens it spends on the
table's words beyond the one each stand-in is priced at; then the most any of them
spends so, word by word (what a guard against the largest count pays)."""

_BEYOND_ASCII_LETTERS: Final = (
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0386\u0388-\u03ff\u0401\u0410-\u044f\u0451"
    "\u1e00-\u1eff"
)
WORD_LETTERS: Final = "A-Za-z" + _BEYOND_ASCII_LETTERS
"""The letters of a word of the table, as a character class: ASCII, Latin-1's letters
(not ``×`` and ``÷``), Latin Extended-A and -B, the Greek and Coptic block's letters
(from ``Ά``), the Cyrillic letters of Russian's alphabet, and Latin Extended Additional
(the Vietnamese letters with two marks). A word with a Cyrillic letter Russian does not
write (``ї``, ``ј``, ``ү``, ``қ``) is left to the letter features: which language a text
is in, and so the price of its other Cyrillic letters, is read from those letters
(``ctxbudget.tokens.features``), and a Kazakh word standing in had made Kazakh read as
Mongolian. Everyday Russian, Bulgarian and Greek prose costs what its words cost as much
as its letters: a vocabulary holds the common ones whole (o200k 8,600 Cyrillic words
after a space, cl100k 270) and cuts the rest into pieces of two or three letters, so a
price per letter that fit the man pages of software came out 11-28 % under everyday
prose before these words stood in."""

STAND_IN: Final = "the"
"""What a word of the table is written as for the other features: one token of every
vocabulary after a space, and a common word to the word features."""

Counts = tuple[int, ...]
# What a text of no held word adds: nothing.
_NONE: Final = (0,) * len(HELD_COUNT_NAMES)

# A space and a whole word of ASCII letters: the end or an ASCII non-letter after it.
# The patterns of words start with the space they follow, which ``_stand_in`` writes
# back: a search skips to a literal first character, where a look-behind is tried at
# every position (the split of French, German and Vietnamese text took 40 % longer).
_ASCII_WORD: Final = re.compile(" ([A-Za-z]++)(?![^\\x00-\\x7f])")
# The UTF-8 lead bytes of the table's letters beyond ASCII (U+00C0-U+027F,
# U+0380-U+04FF, U+1000-U+1FFF): most texts beyond ASCII hold none (Chinese, Japanese),
# which ``in`` tells them in a fraction of a search for the letters.
_LEAD_BYTES: Final = tuple(
    bytes((lead,)) for lead in (*range(0xC3, 0xCA), *range(0xCE, 0xD4), 0xE1)
)
# A space and a whole word with a letter beyond ASCII: its ASCII letters, the first
# letter beyond, and the rest, then no letter of any script and no combining mark. The
# quantifiers are possessive: a word followed by a letter fails at once, without giving
# its letters back one by one.
_WORD_BEYOND_ASCII: Final = re.compile(
    f" ([A-Za-z]*+[{_BEYOND_ASCII_LETTERS}][{WORD_LETTERS}]*+)(?![^\\W\\d_]|[\u0300-\u036f])"
)


def _stand_in(
    words: re.Pattern[str], costs: Mapping[str, tuple[int, ...]], text: str
) -> tuple[str, Counts]:
    """``text`` with each match of ``words`` (a space, and a word as its one group) that
    ``costs`` holds written as ``STAND_IN``, and the counts of ``HELD_COUNT_NAMES`` over
    those words.
    The text is split at the words in C, and the counts are summed per distinct word: a
    text of one short word written again and again is the worst case (400,000
    characters of ``" é"`` in 48 ms here)."""
    parts = words.split(text)
    found = [word for word in parts[1::2] if word in costs]
    if not found:
        return text, _NONE
    parts[1::2] = [" " + (STAND_IN if word in costs else word) for word in parts[1::2]]
    counts = [0] * len(HELD_COUNT_NAMES)
    for word, times in collections.Counter(found).items():
        held = costs[word]
        for place, cost in enumerate(held):
            counts[place] += times * (cost - 1)
        counts[-1] += times * (max(held) - 1)
    return "".join(parts), tuple(counts)


def reference_ascii_stand_in(costs: Mapping[str, tuple[int, ...]], text: str) -> tuple[str, Counts]:
    """``text`` with each whole word of ASCII letters after a space that ``costs`` holds
    written as ``STAND_IN``, and the counts of ``HELD_COUNT_NAMES`` over those words."""
    return _stand_in(_ASCII_WORD, costs, text)


AsciiStandIn = Callable[[str, bytes], tuple[str, bytes, Counts]]


@dataclass(frozen=True, slots=True)
class HeldWords:
    """The table: each word and, per vocabulary of ``HELD_VOCABULARIES``, the tokens it
    spends on the word after a space; ``ascii_stand_in`` finds its words of ASCII
    letters (``HeldWords.from_table`` builds it)."""

    costs: Mapping[str, tuple[int, ...]]
    ascii_stand_in: AsciiStandIn

    @classmethod
    def from_table(cls, table: Mapping[str, str]) -> HeldWords:
        """From the tables' JSON: each word's costs as a string of one character per
        vocabulary, a digit of base 36 (``"1211"``; ``"17a1"`` for ten tokens)."""
        costs = {word: tuple(int(cost, 36) for cost in digits) for word, digits in table.items()}
        return cls(costs, _ascii_stand_in({w: c for w, c in costs.items() if w.isascii()}))

    def stand_in(self, text: str, encoded: bytes | None = None) -> tuple[str, bytes, Counts]:
        """``text`` with each word of the table after a space written as ``STAND_IN``,
        its UTF-8 bytes, and the counts of ``HELD_COUNT_NAMES`` over those words;
        ``encoded``: the bytes of ``text``, if at hand."""
        data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
        text, data, counts = self.ascii_stand_in(text, data)
        if text.isascii() or not any(lead in data for lead in _LEAD_BYTES):
            return text, data, counts
        stood_in, beyond = self._beyond_ascii(text)
        if stood_in is text:
            return text, data, counts
        summed = tuple(map(sum, zip(counts, beyond, strict=True)))
        return stood_in, stood_in.encode("utf-8", "surrogatepass"), summed

    def _beyond_ascii(self, text: str) -> tuple[str, Counts]:
        """The stand-ins of the words with a letter beyond ASCII."""
        return _stand_in(_WORD_BEYOND_ASCII, self.costs, text)


def _ascii_stand_in(costs: Mapping[str, tuple[int, ...]]) -> AsciiStandIn:
    """``reference_ascii_stand_in`` over ``costs``, by the C extension where the package
    was built with it (one pass over the bytes, a table of its own)."""
    extension = compiled_extension(warn=False)  # neighbours warned at import
    if extension is None:

        def by_definition(text: str, data: bytes) -> tuple[str, bytes, Counts]:
            stood_in, counts = reference_ascii_stand_in(costs, text)
            if stood_in is text:
                return text, data, counts
            return stood_in, stood_in.encode("utf-8", "surrogatepass"), counts

        return by_definition
    words = tuple(word.encode("ascii") for word in costs)
    digits = bytes(cost for word_costs in costs.values() for cost in word_costs)
    compiled = extension.HeldWords(words, digits, STAND_IN.encode())

    def in_one_pass(text: str, data: bytes) -> tuple[str, bytes, Counts]:
        stood_in, *counts = compiled.stand_in(data)
        if stood_in is None:
            return text, data, _NONE
        return stood_in.decode("utf-8", "surrogatepass"), stood_in, tuple(counts)

    return in_one_pass
