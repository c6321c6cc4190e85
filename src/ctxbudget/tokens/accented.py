"""Words of Latin letters beyond ASCII that the vocabularies hold whole.

French, Portuguese, Spanish, Polish or Vietnamese words with accented letters are
mostly one token to a large vocabulary: o200k spends one on `` données``, `` não``,
`` possível`` and `` opção``, Qwen on 9,762 such words written after a space, cl100k on
691. The features that price characters beyond ASCII one by one cannot see that: their
price for an accented letter is floored at what such a letter costs where nothing
merges (random letters, ``"\\u0301" * 1000``), so that no text can hide its cost from the
guard, and priced so, Portuguese man pages came out 7-8 % over o200k's count.

A word of the table (``accented_words`` in ``data/feature_tables.json``: every such word
some vocabulary holds as one token after a space, with what each of the four spends on
it there, measured by ``benchmarks/tokens_tables.py``) is priced by what is known of it:
``stand_in`` writes a common English word in its place, which every vocabulary spends
one token on and the word features price as such, and counts per vocabulary the tokens
it spends beyond that one (``ACCENTED_COUNT_NAMES``). The stand-in keeps the word's
place: the space before it and whatever follows are priced as around any word, where
cutting the word out would join its neighbours (``"\\n é" * 1000`` would become a run of
newlines, which merges).

Only a word written after a space is looked up, and only a whole one: the next
character is neither a letter of any script nor a combining mark. The pre-tokenizers of
the four vocabularies make such a word one piece with its space, so what it costs
alone is what it costs in the text. A word after a mark or a line break is left to the
other features: ``"_å"`` is two tokens where ``" å"`` is one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ACCENTED_COUNT_NAMES",
    "ACCENTED_VOCABULARIES",
    "LATIN_LETTERS",
    "STAND_IN",
    "AccentedWords",
]

ACCENTED_VOCABULARIES: Final = ("cl100k", "o200k", "deepseek_v4", "qwen3")
"""The vocabularies of the table's costs, in order."""

ACCENTED_COUNT_NAMES: Final = (
    *(f"accented_word_extra_tokens_{vocabulary}" for vocabulary in ACCENTED_VOCABULARIES),
    "accented_word_extra_tokens_most",
)
"""The counts of ``AccentedWords.stand_in``: per vocabulary, the tokens it spends on the
table's words beyond the one each stand-in is priced at; then the most any of them
spends so, word by word (what a guard against the largest count pays)."""

_BEYOND_ASCII_LETTERS: Final = "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
LATIN_LETTERS: Final = "A-Za-z" + _BEYOND_ASCII_LETTERS
"""The letters of a word of the table, as a character class: ASCII, Latin-1's letters
(not ``×`` and ``÷``), Latin Extended-A and -B, and Latin Extended Additional (the
Vietnamese letters with two marks)."""

STAND_IN: Final = "the"
"""What a word of the table is written as for the other features: one token of every
vocabulary after a space, and a common word to the word features."""

# A letter of the table beyond ASCII: a scan of a single class, the fastest search of
# ``re`` (2 ns a character), where looking for words after spaces ran 7 ns a character.
_BEYOND_ASCII: Final = re.compile(f"[{_BEYOND_ASCII_LETTERS}]")
# The UTF-8 lead bytes of those letters (U+00C0-U+027F, U+1000-U+1FFF): most texts
# beyond ASCII hold none (Chinese, Japanese), which ``in`` tells them in a fraction of
# the scan above (4-9 % of a count of such a text).
_LEAD_BYTES: Final = tuple(bytes((lead,)) for lead in (*range(0xC3, 0xCA), 0xE1))
_LETTERS: Final = re.compile(f"[{LATIN_LETTERS}]*")
# What may follow a whole word: not a letter of any script, nor a combining mark.
_WORD_GOES_ON: Final = re.compile("[^\\W\\d_]|[\u0300-\u036f]")
_NONE: Final = (0,) * len(ACCENTED_COUNT_NAMES)


@dataclass(frozen=True, slots=True)
class AccentedWords:
    """The table: each word (letters beyond ASCII among them) and, per vocabulary of
    ``ACCENTED_VOCABULARIES``, the tokens it spends on the word after a space."""

    costs: Mapping[str, tuple[int, ...]]

    @classmethod
    def from_table(cls, table: Mapping[str, str]) -> AccentedWords:
        """From the tables' JSON: each word's costs as a string of one digit per
        vocabulary (``"1211"``)."""
        return cls({word: tuple(map(int, digits)) for word, digits in table.items()})

    def stand_in(self, text: str, encoded: bytes | None = None) -> tuple[str, tuple[int, ...]]:
        """``text`` with each word of the table after a space written as ``STAND_IN``,
        and the counts of ``ACCENTED_COUNT_NAMES`` over those words (``text`` itself,
        and zeros, where it holds none); ``encoded``: its UTF-8 bytes, if at hand."""
        if text.isascii():
            return text, _NONE
        data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
        if not any(lead in data for lead in _LEAD_BYTES):
            return text, _NONE
        found = _BEYOND_ASCII.search(text)
        counts = [0] * len(ACCENTED_COUNT_NAMES)
        kept: list[str] = []
        end = 0
        while found is not None:
            start, word_end = self._word_around(text, found.start())
            found = _BEYOND_ASCII.search(text, word_end)
            costs = self.costs.get(text[start:word_end]) if start else None
            if costs is None:  # not after a space, not whole, or held by no vocabulary
                continue
            for place, cost in enumerate(costs):
                counts[place] += cost - 1
            counts[-1] += max(costs) - 1
            kept += (text[end:start], STAND_IN)
            end = word_end
        if not kept:
            return text, _NONE
        kept.append(text[end:])
        return "".join(kept), tuple(counts)

    @staticmethod
    def _word_around(text: str, letter: int) -> tuple[int, int]:
        """The start and end of the run of ``LATIN_LETTERS`` that holds the letter at
        ``letter``; the start is 0 unless the run follows a space and is a whole word."""
        run = _LETTERS.match(text, letter)
        word_end = run.end() if run else letter + 1
        start = text.rfind(" ", 0, letter) + 1
        if not start or _LETTERS.fullmatch(text, start, letter) is None:
            return 0, word_end
        if _WORD_GOES_ON.match(text, word_end) is not None:
            return 0, word_end
        return start, word_end
