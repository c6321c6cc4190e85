"""Units repeated back to back: the part of a count a linear price cannot see.

A linear estimate prices a text by the sum of its features, a fraction of a token each,
and a tokenizer spends whole tokens: where a short unit the vocabularies never saw
together (``"TwIh"``, ``"_QZ"``, ``"Hæ&"``, ``"กา"``) is repeated, each repetition
costs what the unit costs alone, rounded up to whole tokens, and the fractions the
estimate adds up instead lose a fifth to a half of the count. The calibrated counter
prices such a run at its repetitions times the count of the unit alone
(``ctxbudget.tokens.calibrated``).

``periodic_runs`` finds the runs: every maximal stretch of bytes that each equal the
byte ``p`` before them, with the unit before them a given number of whole units or
more (``repeated_units`` asks for two), for a unit of ``SHORTEST`` to ``LONGEST`` bytes
that repeats no shorter unit. ``reference_periodic_runs`` is its definition; where the
package was built with its C extension (``ctxbudget.tokens._neighbours``) the same list
comes from one pass in C (``tests/tokens/test_repeats.py`` holds the two to the same
list).

``repeated_units`` keeps the runs that are not ordinary text: a run that holds a
character beyond ASCII, or an ASCII word (the whole word around the run, JSON and C
escapes left out) that is not in the common-word table. Of units written only twice it
keeps a unit of ``LONG_UNIT`` bytes or more with no ASCII white space or punctuation,
and a word (letters, digits, underscores) that is a unit of ``DOUBLED_SHORTEST`` bytes or
more written twice, nothing else (``findablefindable``, ``TwIhTwIh``,
``generated_chatgenerated_chat``: twice the unit's tokens, where the word's letters were
priced as one uncommon word's). Runs of ASCII that ordinary text holds are left to the
features: ``"> > > "``, ``"\\\\n\\\\n"``, ``"\\r\\n\\r\\n"`` and
``"/bookmark/bookmark"``, which vocabularies merge as they merge ordinary text, except
where a letter of the unit is followed by a punctuation mark, read round
(``"(af" * 27``, ``".af" * 27``): no pre-tokenizer joins a letter to the mark after it,
so each copy is cut from the next and costs what it costs alone, where the features had
priced the copies at 57-83 % of some vocabulary's count; and runs
of one byte, which are not looked for, but for the ASCII punctuation marks and letters
(``PRICED_CHARACTERS``: ``byte_runs`` finds them). A character beyond ASCII written
again and again (``"？？？"``, ``"ааа"``, ``"────"``) is a unit of its own:
vocabularies merge few of them, each in its own way, which the counter prices from
their tables (``ctxbudget.tokens.features.one_character_run_costs``), as it prices
those marks and letters. A unit that holds two in a row of a character every vocabulary merges far
is a piece of a table's rule (``"──────┼"``), left to the features.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Final

from ctxbudget.tokens.neighbours import compiled_function

__all__ = [
    "DOUBLED_SHORTEST",
    "EVERY_PRICED_CHARACTER",
    "LONGEST",
    "LONG_UNIT",
    "MOST",
    "PRICED_CHARACTERS",
    "PRICED_LETTERS",
    "PRICED_MARKS",
    "SHORTEST",
    "UNITS",
    "RepeatedUnit",
    "byte_runs",
    "periodic_runs",
    "reference_byte_runs",
    "reference_periodic_runs",
    "repeated_units",
    "shortest_runs",
]

SHORTEST: Final = 2
LONGEST: Final = 32
"""The units looked for, in bytes: two ASCII characters to eight of four bytes each (ten
ideographs, a key of twenty letters): units longer than 16 bytes, written two or three
times, were priced at 64-85 % of a vocabulary's count (``"1FzfBUCUWIwyCQFlPqsB" * 2``,
a unit of seven ideographs written three times). Runs are found by testing a position
every unit or so, so the longer units cost 5 ms more over the 6 MB of the dev corpus
(21 against 16), about 1 % of a count."""

UNITS: Final = 3
"""How many times a unit is written in a row, at least, to count: twice is mostly a
piece of an ordinary word or line ("queue", "needed", "%s%s", a row of a table). Two
lifted 4 more of 8,131 drawn texts over the guard's share, and left 822 runs to price
in the 1,394 texts of the dev corpus (three: a few dozen), which took twice as long.
A unit written twice counts only where the two make a whole word (``DOUBLED_SHORTEST``)
or the unit is ``LONG_UNIT`` bytes or more with no space or punctuation: runs of two
units are looked for (a third more of the time ``repeated_units`` takes, 12
ms against 8 over half the dev corpus, about 4 % of a count) and the others dropped."""

DOUBLED_SHORTEST: Final = 3
"""The shortest unit of a word written twice that is priced as such: the runs of two
units are looked for from this period on, and kept only where they are a whole word
(``"abab"``, ``"coco"``: shorter units, which vocabularies merge, are left to the
features). A word here is a run of ASCII letters, digits and underscores, as an
identifier is written (``"generated_chatgenerated_chat"``)."""

LONG_UNIT: Final = 8
"""The shortest unit whose run of two units is priced as such wherever it is, if it holds
no ASCII white space or punctuation (a key of random letters written again, ideographs
pasted twice): no vocabulary merges far across eight bytes that repeat nothing it
learned. Shorter ones written twice are mostly pieces of ordinary words (``"needed"``),
and a unit with spaces or punctuation is mostly a phrase or a line written again, which
vocabularies merge as they merge any text: kept, they were 347 more runs to price in
the dev corpus (2,467 against 2,120), and counts took 9-11 % longer."""

PRICED_MARKS: Final = string.punctuation
"""The ASCII punctuation marks, whose runs of one byte (``UNITS`` or more) are priced as
units: each vocabulary merges a run of one mark its own way, by tokens of 2 to 64 copies
("~" by 32 in cl100k, 16 in DeepSeek V4's), so that 31 copies are five tokens where 32
are one, which no price per copy can say (a profile priced runs of "~" at a third to a
half of its tokens); their costs are tables
(``ctxbudget.tokens.features.one_character_run_costs``)."""

PRICED_LETTERS: Final = string.ascii_letters
"""The ASCII letters, whose runs of one byte are priced as the marks' are: a vocabulary
merges ``"hh"`` but not ``"hhh"``, ``"uuuu"`` but not ``"uuuuu"``, so that a letter
written again and again costs a token every one to eight copies, which the price of a
word's letters put at a third to a half of its count (``"h" * 16``: 8 tokens of cl100k's,
3 by its profile). Ordinary words hold no letter three times in a row."""

PRICED_CHARACTERS: Final = PRICED_MARKS + PRICED_LETTERS
"""The ASCII characters whose runs ``repeated_units`` looks for."""

MOST: Final = 64
"""The most repeated units priced in one text, the runs of one punctuation mark first,
then the longest: each costs two counts of short text (10-50 us), and a text made of
thousands of distinct repeated units would otherwise take a second to price, where its
size alone takes milliseconds. Past it, runs keep the weights' price."""

Run = tuple[int, int, int]
"""``(start, period, length)`` in bytes: ``data[start:start + length]`` repeats its first
``period`` bytes, ``length >= units * period``."""


@dataclass(frozen=True, slots=True)
class RepeatedUnit:
    """``unit`` written ``times`` times in a row (``times >= UNITS``, or twice: as one
    word, or a unit of ``LONG_UNIT`` bytes or more)."""

    unit: str
    times: int


def reference_periodic_runs(data: bytes, shortest: int, longest: int, units: int) -> list[Run]:
    """Every maximal run of bytes that each equal the byte ``period`` before them, for
    ``shortest <= period <= longest``, that makes with the unit before it (its first
    ``period`` bytes) ``units`` whole units or more, and whose unit repeats no shorter
    unit (so no run of one byte); sorted. The definition ``periodic_runs`` computes in
    C: per period, the matching bytes are the zero bytes of the two shifted copies
    XORed as integers."""
    if not 2 <= shortest <= longest:
        raise ValueError("periods must satisfy 2 <= shortest <= longest")
    if not 2 <= units <= 64:
        raise ValueError("units must satisfy 2 <= units <= 64")
    runs: list[Run] = []
    whole = int.from_bytes(data, "big")
    for period in range(shortest, min(longest, len(data) - 1) + 1):
        size = len(data) - period
        matched = (units - 1) * period
        # Byte i of ``zeros`` is 0 where data[i + period] == data[i].
        unequal = (whole >> (8 * period)) ^ (whole & ((1 << (8 * size)) - 1))
        zeros = unequal.to_bytes(size, "big")
        # bytes.find skips to the next stretch of zeros long enough, where a regex
        # searching for one would try every position.
        enough = bytes(matched)
        start = zeros.find(enough)
        while start >= 0:
            unequal_after = _NONZERO.search(zeros, start)
            end = unequal_after.start() if unequal_after else size
            if _is_minimal(data[start : start + period]):
                runs.append((start, period, end - start + period))
            start = zeros.find(enough, end)
    return sorted(runs)


def reference_byte_runs(data: bytes, shortest: bytes) -> list[Run]:
    """Every maximal run of one byte at least ``shortest[byte]`` long (``shortest``: 256
    lengths, one a byte value, 0 where that byte's runs are not looked for), as
    ``(start, 1, length)``; sorted. The definition ``byte_runs`` computes in C."""
    if len(shortest) != 256:
        raise ValueError("shortest must hold 256 lengths, one a byte value")
    if 1 in shortest:
        raise ValueError("shortest lengths must be 0 or at least 2")
    looked_for = bytes(byte for byte in range(256) if shortest[byte])
    if not looked_for:
        return []
    one_of = b"".join(re.escape(bytes([byte])) for byte in looked_for)
    runs = re.compile(b"([%s])\\1+" % one_of)
    return [
        (match.start(), 1, match.end() - match.start())
        for match in runs.finditer(data)
        if match.end() - match.start() >= shortest[data[match.start()]]
    ]


def shortest_runs(lengths: Mapping[str, int]) -> bytes:
    """The table ``byte_runs`` takes: ``lengths`` maps an ASCII character to the
    shortest run of it to find (2 or more)."""
    table = bytearray(256)
    for character, length in lengths.items():
        if len(character) != 1 or not character.isascii():
            raise ValueError(f"runs are of one ASCII character, not {character!r}")
        if not 2 <= length <= 255:
            raise ValueError(f"the shortest run of {character!r} must be 2 to 255, not {length}")
        table[ord(character)] = length
    return bytes(table)


def _is_minimal(unit: bytes) -> bool:
    period = len(unit)
    if unit.count(unit[:1]) == period:  # one byte repeated: most runs, in indentation
        return False
    return not any(
        period % shorter == 0 and unit == unit[:shorter] * (period // shorter)
        for shorter in range(1, period)
    )


periodic_runs: Final[Callable[[bytes, int, int, int], list[Run]]] = (
    compiled_function("periodic_runs") or reference_periodic_runs
)
"""``reference_periodic_runs``, computed by the C extension where it is built."""

byte_runs: Final[Callable[[bytes, bytes], list[Run]]] = (
    compiled_function("byte_runs") or reference_byte_runs
)
"""``reference_byte_runs``, computed by the C extension where it is built."""

_NONZERO: Final = re.compile(b"[^\x00]")
EVERY_PRICED_CHARACTER: Final = shortest_runs(dict.fromkeys(PRICED_CHARACTERS, UNITS))
"""The runs ``repeated_units`` looks for by default: of every mark and letter, ``UNITS``
or more."""
_ASCII_LETTERS: Final = re.compile(rb"[A-Za-z]+")
# The bytes of an identifier: a doubled word is made of them and has none beside it.
_WORD_BYTES: Final = rb"A-Za-z0-9_"
_WORD: Final = re.compile(rb"[%s]+" % _WORD_BYTES)
# A unit of two written twice that ordinary text repeats holds spaces or punctuation (a
# line or a phrase written again, "PR fortran/106579, PR fortran/106579", a table's
# rule); a key or a run of ideographs holds none.
_UNSPACED: Final = re.compile(rb"[%s\x80-\xff]+" % _WORD_BYTES)
# A letter after a backslash is an escape's, not a word's ("\\n\\n" of a JSON string).
_ESCAPE: Final = re.compile(rb'\\[nrtbfu"/\\]')


def repeated_units(
    text: str,
    common_words: Collection[bytes],
    most: int = MOST,
    far_merging: Collection[str] = (),
    marks: bytes = EVERY_PRICED_CHARACTER,
    encoded: bytes | None = None,
) -> tuple[RepeatedUnit, ...]:
    """The runs of ``periodic_runs`` in ``text`` that ordinary text does not hold, as
    their unit and how many whole times it is written (see the module's docstring), and
    the runs of the marks and letters of ``PRICED_CHARACTERS``: those first, then the
    others, the longest
    first, ``most`` at the most; ``common_words``: the common-word table, as
    bytes (a word is common as it is written or in lower case). ``far_merging``:
    characters every vocabulary merges many of to a token ("─"); a unit that holds two
    of one of them in a row is a piece of a rule ("──────┼"), left to the features.
    ``marks``: the runs of one mark or letter found (``shortest_runs``; a counter leaves
    out those every vocabulary spends a token on, which cost what any count is at least).
    ``encoded``: the text's UTF-8 bytes (surrogates passed), if the caller has them."""
    data = text.encode("utf-8", "surrogatepass") if encoded is None else encoded
    # Runs of two units or more: those of two count only as a doubled word or a long
    # unit (``_doubled``), of ``DOUBLED_SHORTEST`` bytes or more (``LONG_UNIT`` is
    # longer); the shorter ones ("abab", a third of all runs in real text) are dropped
    # before the loop.
    runs = sorted(
        (
            run
            for run in periodic_runs(data, SHORTEST, LONGEST, 2)
            if run[1] >= DOUBLED_SHORTEST or run[2] >= UNITS * run[1]
        ),
        key=lambda run: -run[2],
    )
    found = _one_character_runs(data, marks)[:most]
    for start, period, length in runs:
        if len(found) == most:
            break
        # A run may start inside a character; its first whole one starts the unit.
        while data[start] & 0xC0 == 0x80:
            start, length = start + 1, length - 1
        times = length // period
        if times < UNITS and not _doubled(data, start, period, length):
            continue
        unit = data[start : start + period].decode("utf-8", "surrogatepass")
        ordinary = _ordinary(data, start, start + length, common_words) and not _cut_apart(unit)
        if ordinary or _rule(unit, far_merging):
            continue
        found.append(RepeatedUnit(unit, times))
    return tuple(found)


def _one_character_runs(data: bytes, marks: bytes) -> list[RepeatedUnit]:
    """The runs of one mark or letter that ``byte_runs`` finds over the table ``marks``,
    the longest first."""
    runs = byte_runs(data, marks)
    if not runs:  # most texts
        return []
    runs.sort(key=lambda run: -run[2])
    return [RepeatedUnit(chr(data[start]), length) for start, _, length in runs]


def _ordinary(data: bytes, start: int, end: int, common_words: Collection[bytes]) -> bool:
    """Whether ``data[start:end]`` is all ASCII and every word in it, whole (grown to the
    letters around it), is a common word."""
    run = data[start:end]
    if not run.isascii():
        return False
    while start > 0 and _letter(data[start]) and _letter(data[start - 1]):
        start -= 1
    while end < len(data) and _letter(data[end - 1]) and _letter(data[end]):
        end += 1
    words = _ASCII_LETTERS.findall(_ESCAPE.sub(b" ", data[start:end]))
    return all(word in common_words or word.lower() in common_words for word in words)


_LETTER_THEN_MARK: Final = re.compile(r"[A-Za-z][!-/:-@\[-`{-~]")


def _cut_apart(unit: str) -> bool:
    """Whether every vocabulary's pre-tokenizer cuts a run of ``unit`` into its copies,
    each cut alike: somewhere in the unit, read round (its last character before its
    first), a letter is followed by a punctuation mark, where a piece ends (o200k's ends
    after a contraction's letters, "'s", the same place in every copy). Not a unit with
    a backslash: an escape (``"\\n" * 30``) is one token a copy, and its price alone
    rounded up is two to some profiles."""
    return "\\" not in unit and _LETTER_THEN_MARK.search(unit + unit[:1]) is not None


def _doubled(data: bytes, start: int, period: int, length: int) -> bool:
    """Whether a run of two units is priced: a unit of ``LONG_UNIT`` bytes or more with
    no ASCII white space or punctuation, or a whole word (ASCII letters, digits,
    underscores) that is its unit written twice."""
    end = start + length
    if period >= LONG_UNIT:
        return _UNSPACED.fullmatch(data, start, start + period) is not None
    return (
        length == 2 * period
        and period >= DOUBLED_SHORTEST
        and _WORD.fullmatch(data, start, end) is not None
        and not (start > 0 and _WORD.match(data, start - 1, start))
        and not (end < len(data) and _WORD.match(data, end, end + 1))
    )


def _rule(unit: str, far_merging: Collection[str]) -> bool:
    """Whether ``unit`` holds two of one ``far_merging`` character in a row: a piece of a
    table's rule, whose run of that character each vocabulary merges within the unit and
    across the copies, so that the unit alone costs more a copy than the run does (rules
    of "──────┼" written twice, priced as two units, put the box-drawn tables of the dev
    corpus's Chinese text 0.2 points further over cl100k's count)."""
    return not unit.isascii() and any(character * 2 in unit for character in far_merging)


def _letter(byte: int) -> bool:
    return 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A
