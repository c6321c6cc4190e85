"""Counts of neighbouring characters: the part of the text features that looks at a
character together with the one or two before it ("a space before a digit", "three
equal punctuation marks in a row", "a line that starts with text").

Its input is the text as one byte per character (UTF-8 without its continuation
bytes: ASCII bytes stay themselves, a non-ASCII character is its lead byte, which
still names its block). The counts, in ``NEIGHBOUR_NAMES`` order, are defined by
``reference_counts`` below, pure Python over big integers: ``bytes.translate`` maps
every byte to a set of flag bits and ``int.from_bytes`` turns that into one integer,
so that "a byte of class A after a byte of class B" is a shift, an AND and a bit count,
each a pass over the text in C.

``neighbour_counts`` is the function the features call. Where the package was built
with its C extension (``ctxbudget.tokens._neighbours``, compiled from
``_neighbours.c`` when a C compiler is present at install), it is the extension's,
which reads each byte once: two table lookups and an AND a pair of bytes, eleven times
as fast as the thirty-odd passes of the reference on the dev corpus (6.9 ms against 79
ms). Else it is ``reference_counts``, and a ``RuntimeWarning`` says the counts are slower.
The same extension counts the pairs of ``unmerged_pairs_counter`` (the pair floors of
``ctxbudget.tokens.features.pair_floors``, over the UTF-8 bytes as they are), the
words of ``ctxbudget.tokens.words`` and the bytes of each class of a table
(``class_counts``: the kinds of character the features only count, in one pass where
its definition translates the bytes and counts each class apart: the ASCII kinds of the
dev corpus in 3.6 ms, where the translation and eight counts took 19.2). The test suite
holds the two to the same tuple on arbitrary text (``tests/tokens/test_neighbours.py``);
the C code reads its classes from the tables built here (``FLAG_TABLE``,
``MORE_FLAG_TABLE``, ``LEAD_FLAG_TABLE``), so a class is defined once.
"""

from __future__ import annotations

import collections
import functools
import itertools
import operator
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from types import ModuleType
from typing import Any, Final

__all__ = [
    "ASCII_PUNCTUATION",
    "CONTROLS",
    "NEIGHBOUR_NAMES",
    "PIECE",
    "UNICODE_SPACES",
    "ClassCounts",
    "Counts",
    "RangeClassCounts",
    "UnmergedPairs",
    "bitmap_bytes",
    "byte_span",
    "class_counts",
    "compiled_counts",
    "compiled_extension",
    "compiled_function",
    "joined_pair_bitmap",
    "neighbour_counts",
    "range_class_counts",
    "reference_class_counts",
    "reference_counts",
    "reference_range_class_counts",
    "reference_unicode_space_changes",
    "reference_unmerged_pairs",
    "unicode_space_changes",
    "unmerged_pair_table",
    "unmerged_pairs_counter",
]

PIECE: Final = 1 << 14
"""Longest piece, in characters, processed at once; longer texts are cut after a newline
(which no count spans), so that the repeated-flag masks below stay small."""

NEIGHBOUR_NAMES: Final = (
    "lower_before_upper",
    "upper_pairs_before_lower",
    "punctuation_pairs",
    "punctuation_changes",
    "short_merging_triples",
    "word_joiners",
    "digit_pairs",
    "space_before_digit",
    "space_before_punctuation",
    "punctuation_before_newline",
    "newline_pairs",
    "space_pairs",
    "space_triples",
    "space_before_newline",
    "text_line_starts",
    "punctuation_line_starts",
    "whitespace_changes",
    "bracket_pairs",
    "quote_pairs",
    "punctuation_pairs_with_quote",
    "mixed_quote_pairs",
    "space_before_non_ascii",
    "letter_after_non_ascii",
    "punctuation_before_non_ascii",
    "two_byte_lead_pairs",
    "han_lead_pairs",
    "three_byte_lead_pairs",
    "three_byte_script_lead_pairs",
    "word_before_newline",
    "quote_alternations",
    "digit_pairs_opening_groups",
    "hyphen_joiners",
)
"""What each count is, in order (each pair is "a byte of the second class right after
one of the first"):

``lower_before_upper``: an ASCII lower-case letter then a capital; ``upper_pairs_before_lower``:
two capitals then a lower-case letter; ``punctuation_pairs``: ASCII punctuation or
control characters after one (``_`` and ``.`` are punctuation); ``punctuation_changes``:
those pairs of two different bytes; ``short_merging_triples``: a byte of
``! $ ( ) + , : ; < > ? @ \\ ^ |`` that repeats the two before it; ``word_joiners``: a dot
or an underscore between two ASCII letters; ``digit_pairs``, ``space_before_digit``,
``space_before_punctuation``, ``punctuation_before_newline``, ``newline_pairs``,
``space_pairs`` (the space is U+0020 only), ``space_triples``, ``space_before_newline``;
``text_line_starts``: bytes at the start of a line (after a line feed, and the first
byte when ``line_start``) that are not ASCII white space, ``punctuation_line_starts`` those
that are punctuation; ``whitespace_changes``: an ASCII white-space byte after a different
one that is not a line feed; ``bracket_pairs``: ``[ ] { } ` &`` after one of them;
``quote_pairs``: ``"`` or ``'`` after one; ``punctuation_pairs_with_quote``: punctuation pairs
with a quote on either side; ``mixed_quote_pairs``: quote pairs of one ``"`` and one ``'``;
``space_before_non_ascii``, ``letter_after_non_ascii``, ``punctuation_before_non_ascii``;
and pairs of lead bytes of one class: two-byte characters (U+0080-U+07FF), Han (U+4000-
U+9FFF), other three-byte characters (U+0800-U+2FFF, U+E000-U+EFFF) and, among those,
the scripts of U+0800-U+1FFF; ``word_before_newline``: a line feed after an ASCII letter
or digit, or after a character of a lead byte of letters (the letter lead flag: Latin,
Greek, Cyrillic, Hebrew, Arabic, Indic, Thai, Han, Hangul; not Armenian); after
punctuation or a space the vocabularies join it to what comes before (``")\n"``,
``" \n"`` are tokens), and where a script's full stop shares its lead byte with the
line's last letters ("。", "։", "።"), the lead byte cannot tell the two apart;
``quote_alternations``: two punctuation marks, one of them a quote, alternating (``'/'/``,
``",",``), from the fourth on; ``digit_pairs_opening_groups``: digit pairs whose second
digit opens a group of three of its run, counted from the run's start (the fourth,
seventh... digit: ``"2026"`` has one), so that a run of n digits is ceil(n / 3) groups;
``hyphen_joiners``: a hyphen between two ASCII letters, the second lower case."""

ASCII_PUNCTUATION: Final = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
# Control characters are punctuation to every pre-tokenizer (not letters, digits or
# white space).
CONTROLS: Final = bytes((*range(0x09), *range(0x0B, 0x0D), *range(0x0E, 0x20), 0x7F))


def byte_span(first: int, last: int) -> bytes:
    """The bytes ``first`` to ``last``, both included."""
    return bytes(range(first, last + 1))


# Flag bits of the first translation (one byte per character).
_DIGIT, _PUNCTUATION, _SPACE, _JOINER, _LOWER, _UPPER, _NEWLINE, _NON_ASCII = (
    1 << bit for bit in range(8)
)


def _flags(b: int) -> int:
    flags = 0
    for flag, members in (
        (_DIGIT, byte_span(0x30, 0x39)),
        (_PUNCTUATION, ASCII_PUNCTUATION + CONTROLS),
        (_SPACE, b" "),
        (_JOINER, b"._"),  # a dot or an underscore, punctuation too
        (_LOWER, byte_span(0x61, 0x7A)),
        (_UPPER, byte_span(0x41, 0x5A)),
        (_NEWLINE, b"\n"),
        (_NON_ASCII, byte_span(0xC0, 0xFF)),
    ):
        if b in members:
            flags |= flag
    return flags


FLAG_TABLE: Final = bytes(_flags(b) for b in range(256))

# Flag bits of the second translation: a 3-bit id (1-6) of each white-space byte (the
# carries of ``_whitespace_changes`` go into bit 3 of the masked ids, not of these
# flags); punctuation that merges short (``short_merging_triples``); quotes, single
# quotes; text (not white space) on the newline flag's bit, so that ``newlines << 8``
# selects the bytes after a newline; brackets.
_WHITESPACE_ID, _SHORT_MERGING, _QUOTE, _SINGLE_QUOTE, _TEXT, _BRACKET = (
    0x07,
    0x08,
    0x10,
    0x20,
    _NEWLINE,
    0x80,
)


def _more_flags(b: int) -> int:
    flags = b" \t\n\r\x0b\x0c".find(b) + 1 or _TEXT
    for flag, members in (
        (_QUOTE, b"\"'"),
        (_SINGLE_QUOTE, b"'"),
        (_BRACKET, b"[]{}`&"),
        (_SHORT_MERGING, b"!$()+,:;<>?@\\^|"),
    ):
        if b in members:
            flags |= flag
    return flags


MORE_FLAG_TABLE: Final = bytes(_more_flags(b) for b in range(256))

# Flag bits of the lead bytes of scripts whose runs matter. Scripts of three-byte
# characters (U+0800-U+1FFF: Indic, Thai, Tibetan, Georgian, Khmer, Vietnamese
# letters...) also carry the other three-byte flag; symbols and punctuation
# (U+2000-U+2FFF, U+E000-U+EFFF) only that one.
_TWO_BYTE_LEAD, _HAN_LEAD, _OTHER_THREE_BYTE_LEAD, _THREE_BYTE_SCRIPT_LEAD = 1, 2, 4, 8
# Lead bytes whose characters at a line's end are nearly all letters: U+00C0-U+04FF and
# U+05C0-U+07FF (Latin, Greek, Cyrillic, Hebrew, Arabic letters), U+0800-U+0FFF (Indic,
# Thai, Tibetan), Han and Hangul (U+4000-U+DFFF). Not the lead bytes whose punctuation
# ends lines: Latin-1 signs (U+0080-U+00BF), Armenian (U+0500-U+05BF, whose full stop
# "։" shares its letters' lead bytes; counted, DeepSeek's profile priced Armenian prose
# at 87 % of its count), Ethiopic's and the Vietnamese letters' block (U+1000-U+1FFF:
# "።"), general punctuation and symbols (U+2000-U+2FFF), CJK punctuation and kana
# (U+3000-U+3FFF: "。"), full-width forms and emoji.
_LETTER_LEAD = 0x10
_LETTER_LEADS: Final = frozenset((*range(0xC3, 0xD4), *range(0xD7, 0xE1), *range(0xE4, 0xEE)))


def _lead_flags(b: int) -> int:
    flags = (
        _TWO_BYTE_LEAD
        if 0xC2 <= b <= 0xDF
        else _HAN_LEAD
        if 0xE4 <= b <= 0xE9
        else _OTHER_THREE_BYTE_LEAD | _THREE_BYTE_SCRIPT_LEAD
        if b in (0xE0, 0xE1)
        else _OTHER_THREE_BYTE_LEAD
        if b in (0xE2, 0xEE)
        else 0
    )
    return flags | (_LETTER_LEAD if b in _LETTER_LEADS else 0)


LEAD_FLAG_TABLE: Final = bytes(map(_lead_flags, range(256)))


def _repeated(flag: int) -> int:
    """``flag`` in every byte of a ``PIECE``-byte integer (the ``_EVERY_*`` masks, built
    once at import: a lookup per use would cost more than some of the counts)."""
    return int.from_bytes(bytes((flag,)) * PIECE, "little")


_EVERY_7F: Final = _repeated(0x7F)
_EVERY_JOINER: Final = _repeated(_JOINER)
_EVERY_BRACKET: Final = _repeated(_BRACKET)
_EVERY_DIGIT: Final = _repeated(_DIGIT)
_EVERY_HAN_LEAD: Final = _repeated(_HAN_LEAD)
_EVERY_LETTER: Final = _repeated(_LOWER | _UPPER)
_EVERY_LOWER: Final = _repeated(_LOWER)
_EVERY_LETTER_LEAD: Final = _repeated(_LETTER_LEAD)
_EVERY_NEWLINE: Final = _repeated(_NEWLINE)
_EVERY_NON_ASCII: Final = _repeated(_NON_ASCII)
_EVERY_PUNCTUATION: Final = _repeated(_PUNCTUATION)
_EVERY_QUOTE: Final = _repeated(_QUOTE)
_EVERY_SEVEN: Final = _repeated(_WHITESPACE_ID)
_EVERY_SINGLE_QUOTE: Final = _repeated(_SINGLE_QUOTE)
_EVERY_SPACE: Final = _repeated(_SPACE)
_EVERY_THREE_BYTE_LEAD: Final = _repeated(_OTHER_THREE_BYTE_LEAD)
_EVERY_THREE_BYTE_SCRIPT_LEAD: Final = _repeated(_THREE_BYTE_SCRIPT_LEAD)
_EVERY_TWO_BYTE_LEAD: Final = _repeated(_TWO_BYTE_LEAD)
_EVERY_UPPER: Final = _repeated(_UPPER)


def _next_byte(flag: int, as_flag: int) -> int:
    """How far to shift a mask of ``flag`` bits left to move it one byte on and onto
    ``as_flag``'s bit, to be ANDed with a mask of ``as_flag``: "a ``flag`` byte followed
    by an ``as_flag`` byte". Constants, so that no call is paid per text."""
    return 8 + as_flag.bit_length() - flag.bit_length()


_LOWER_TO_UPPER: Final = _next_byte(_LOWER, _UPPER)
_SPACE_TO_DIGIT: Final = _next_byte(_SPACE, _DIGIT)
_SPACE_TO_PUNCTUATION: Final = _next_byte(_SPACE, _PUNCTUATION)
_PUNCTUATION_TO_NEWLINE: Final = _next_byte(_PUNCTUATION, _NEWLINE)
_SPACE_TO_NEWLINE: Final = _next_byte(_SPACE, _NEWLINE)
_SPACE_TO_NON_ASCII: Final = _next_byte(_SPACE, _NON_ASCII)
_UPPER_TO_LOWER: Final = _next_byte(_UPPER, _LOWER)
_LOWER_TO_JOINER: Final = _next_byte(_LOWER, _JOINER)
_UPPER_TO_JOINER: Final = _next_byte(_UPPER, _JOINER)
# One byte back: a right shift by 8 plus the distance of the flag above the joiner's.
_LOWER_BACK_TO_JOINER: Final = 8 + _LOWER.bit_length() - _JOINER.bit_length()
_UPPER_BACK_TO_JOINER: Final = 8 + _UPPER.bit_length() - _JOINER.bit_length()
# The non-ASCII counts, from ``space_before_non_ascii`` to the last lead pairs.
_NO_NON_ASCII: Final = (0,) * (
    NEIGHBOUR_NAMES.index("word_before_newline") - NEIGHBOUR_NAMES.index("space_before_non_ascii")
)


def _pairs(mask: int) -> int:
    """Set flags whose previous byte is set too: runs are the set flags minus these."""
    return (mask & (mask << 8)).bit_count()


def reference_counts(data: bytes, line_start: bool) -> tuple[int, ...]:
    """The counts of ``NEIGHBOUR_NAMES`` of ``data`` (one byte per character, at most
    ``PIECE`` of them); ``line_start``: whether its first byte starts a line."""
    flags = int.from_bytes(data.translate(FLAG_TABLE), "little")
    # Every flag one byte on: ``x & previous`` marks class bytes preceded by the class.
    previous = flags << 8
    digits = flags & _EVERY_DIGIT
    punctuation = flags & _EVERY_PUNCTUATION
    spaces = flags & _EVERY_SPACE
    uppercase = flags & _EVERY_UPPER
    newlines = flags & _EVERY_NEWLINE
    double_spaces = spaces & previous
    punctuation_pairs = punctuation & previous
    # Each shift is a pass over the text: none where its partner class is absent.
    changes, same, changes_mask = (
        _punctuation_changes(data, punctuation_pairs) if punctuation_pairs else (0, 0, 0)
    )
    more_flags = int.from_bytes(data.translate(MORE_FLAG_TABLE), "little")
    # The newline flag on every byte that starts a line (an AND, not a shift).
    line_starts = previous & _EVERY_NEWLINE | (_NEWLINE if line_start else 0)
    space_before_newline = (spaces << _SPACE_TO_NEWLINE & newlines).bit_count() if newlines else 0
    ascii_counts = (
        ((flags & _EVERY_LOWER) << _LOWER_TO_UPPER & uppercase).bit_count() if uppercase else 0,
        ((uppercase & previous) << _UPPER_TO_LOWER & flags).bit_count() if uppercase else 0,
        punctuation_pairs.bit_count(),
        changes,
        _short_merging_triples(same, more_flags) if same else 0,
        _word_joiners(data, flags),
        (digits & previous).bit_count(),
        (spaces << _SPACE_TO_DIGIT & digits).bit_count() if digits else 0,
        (spaces << _SPACE_TO_PUNCTUATION & punctuation).bit_count(),
        (punctuation << _PUNCTUATION_TO_NEWLINE & newlines).bit_count() if newlines else 0,
        (newlines & previous).bit_count(),
        double_spaces.bit_count(),
        (double_spaces & (double_spaces << 8)).bit_count(),
        space_before_newline,
        (more_flags & line_starts).bit_count() if line_starts else 0,
        (line_starts >> 5 & punctuation).bit_count(),  # newline flag, bit 6, onto bit 1
        _whitespace_changes(data, more_flags, newlines, space_before_newline),
        _bracket_pairs(more_flags),
        *_quote_pairs(data, more_flags, punctuation_pairs),
    )
    word_newline = _word_before_newline(flags, newlines) if newlines else 0
    alternations = (
        _quote_alternations(data, more_flags, changes_mask, punctuation) if changes else 0
    )
    group_pairs = _digit_pairs_opening_groups(data) if digits & previous else 0
    hyphens = len(_HYPHEN_JOINER.findall(data)) if b"-" in data else 0
    if data.isascii():
        return (*ascii_counts, *_NO_NON_ASCII, word_newline, alternations, group_pairs, hyphens)
    leads = int.from_bytes(data.translate(LEAD_FLAG_TABLE), "little")
    if newlines:
        # The letter lead flag (bit 4) one byte on and onto the newline flag (bit 6).
        word_newline += ((leads & _EVERY_LETTER_LEAD) << (8 + 6 - 4) & newlines).bit_count()
    non_ascii = flags & _EVERY_NON_ASCII  # one mask for its three neighbours
    return (
        *ascii_counts,
        (spaces << _SPACE_TO_NON_ASCII & non_ascii).bit_count(),
        # The non-ASCII flag (bit 7) one byte on and onto the letter flags (bits 4, 5).
        ((non_ascii << 5 | non_ascii << 6) & flags & _EVERY_LETTER).bit_count(),
        # The non-ASCII flag one byte back and onto the punctuation flag (bit 1).
        (non_ascii >> (8 + 6) & punctuation).bit_count(),
        _pairs(leads & _EVERY_TWO_BYTE_LEAD),
        _pairs(leads & _EVERY_HAN_LEAD),
        _pairs(leads & _EVERY_THREE_BYTE_LEAD),
        _pairs(leads & _EVERY_THREE_BYTE_SCRIPT_LEAD),
        word_newline,
        alternations,
        group_pairs,
        hyphens,
    )


# Written to start with the hyphen, so that the search skips from hyphen to hyphen
# (56.7 -> 4.5 ms over the dev corpus, against a letter class first, tried at every byte).
_HYPHEN_JOINER: Final = re.compile(rb"-(?=[a-z])(?<=[A-Za-z]-)")
_DIGIT_GROUP: Final = re.compile(rb"[0-9]{1,3}")
_DIGIT_RUN: Final = re.compile(rb"[0-9]+")


def _digit_pairs_opening_groups(data: bytes) -> int:
    """Groups of at most three digits, taken from the start of each run, that do not
    start their run."""
    return len(_DIGIT_GROUP.findall(data)) - len(_DIGIT_RUN.findall(data))


def _quote_alternations(data: bytes, more_flags: int, changed: int, punctuation: int) -> int:
    """Punctuation bytes that differ from the one before (``changed``, on the punctuation
    flag, bit 1), equal the one two before, whose predecessor equals the one three
    before (punctuation too), and where one of the two is a quote: "'/'/" from its
    fourth byte on."""
    if b"'" not in data and b'"' not in data:
        return 0
    codes = int.from_bytes(data, "little")
    # As in ``_punctuation_changes``: bit 7 is set where a byte differs from the one two
    # before, which the 7-bit compare tells only where both are ASCII: the four bytes
    # are punctuation (``changed`` at this byte and the one before, ``punctuation`` three
    # bytes back), so they are.
    sevens = _EVERY_7F >> 8 * (PIECE - len(data))
    differs = ((codes ^ (codes << 16)) & _EVERY_7F) + sevens >> 6
    # A change whose byte equals the one two before, the same one byte on, and a quote
    # (bit 4 of ``more_flags``, onto bit 1) on either side of the change.
    repeat = changed & ~differs
    quotes = (more_flags & _EVERY_QUOTE) >> 3
    four = repeat & repeat << 8 & punctuation << 24
    return (four & (quotes | quotes << 8)).bit_count()


def _word_before_newline(flags: int, newlines: int) -> int:
    """Line feeds after an ASCII letter or digit: each of those flags moved one byte on
    and onto the newline flag (bit 6)."""
    before = (
        (flags & _EVERY_LOWER) << (8 + 6 - 4)
        | (flags & _EVERY_UPPER) << (8 + 6 - 5)
        | (flags & _EVERY_DIGIT) << (8 + 6 - 0)
    )
    return (before & newlines).bit_count()


def _punctuation_changes(data: bytes, punctuation_pairs: int) -> tuple[int, int, int]:
    """Punctuation bytes preceded by a *different* punctuation byte (a count), those
    preceded by the same one (a mask on the punctuation flag), and the different ones
    (a mask on the same flag).

    Punctuation (and control) characters are ASCII, so where both neighbours are, the
    bytes XORed with the bytes shifted one byte on are below 0x80, and 0 exactly where
    the two are equal; kept to 7 bits everywhere, adding 0x7F sets bit 7 exactly for
    the different ones, with no carry into the next byte.
    """
    codes = int.from_bytes(data, "little")
    # The mask cut to the data's length: adding all ``PIECE`` bytes of it would cost
    # as much as a whole piece, however short the text.
    different = ((codes ^ (codes << 8)) & _EVERY_7F) + (_EVERY_7F >> 8 * (PIECE - len(data)))
    # Bit 7 of ``different`` lands on the punctuation flag (bit 1).
    changed = different >> 6 & punctuation_pairs
    return changed.bit_count(), punctuation_pairs ^ changed, changed


def _short_merging_triples(same: int, more_flags: int) -> int:
    """Of the punctuation bytes that repeat the one before (``same``), those of the
    short-merging class (its flag, bit 3 of ``more_flags``, onto the punctuation flag,
    bit 1) whose previous byte repeats too: the third of a run and after."""
    short = same & more_flags >> 2
    return (short & short << 8).bit_count()


def _word_joiners(data: bytes, flags: int) -> int:
    """Dots and underscores between two ASCII letters: the joiner flag (bit 3) where
    the lower- or upper-case flag (bits 4, 5) of the byte before, moved one byte on and
    onto bit 3, and that of the byte after, moved one byte back, are set."""
    if b"." not in data and b"_" not in data:  # byte searches, far cheaper than the masks
        return 0
    letter_before = flags << _LOWER_TO_JOINER | flags << _UPPER_TO_JOINER
    letter_after = flags >> _LOWER_BACK_TO_JOINER | flags >> _UPPER_BACK_TO_JOINER
    return (flags & _EVERY_JOINER & letter_before & letter_after).bit_count()


def _whitespace_changes(
    data: bytes, more_flags: int, newlines: int, space_before_newline: int
) -> int:
    """ASCII white-space bytes preceded by a different white-space byte other than a
    newline: like ``_punctuation_changes``, with 3-bit ids (1-6): adding 7 to an id, or
    to the XOR of two, carries into bit 3 exactly when it is not 0, never into the next
    byte. Without tabs, CR, VT and FF the only change is a space before a newline."""
    if b"\t" not in data and b"\r" not in data and b"\x0b" not in data and b"\x0c" not in data:
        return space_before_newline
    ids = more_flags & _EVERY_SEVEN
    # Sevens as long as the text, cut from the cached mask rather than built: past its
    # end ``white`` is 0, and the carries stay inside their byte.
    sevens = _EVERY_SEVEN >> 8 * (PIECE - len(data))
    white = (ids + sevens) >> 3 & sevens
    different = (ids ^ (ids << 8)) + sevens >> 3
    before = white & ~(newlines >> 6)  # the newline flag is bit 6
    return (different & white & (before << 8)).bit_count()


def _bracket_pairs(more_flags: int) -> int:
    """Brackets, braces, backquotes and ampersands right after one."""
    brackets = more_flags & _EVERY_BRACKET
    return (brackets & brackets << 8).bit_count()


def _quote_pairs(data: bytes, more_flags: int, punctuation_pairs: int) -> tuple[int, int, int]:
    """``quote_pairs``, ``punctuation_pairs_with_quote`` and ``mixed_quote_pairs``."""
    if b"'" not in data and b'"' not in data:  # byte searches, far cheaper than the masks
        return 0, 0, 0
    quotes = more_flags & _EVERY_QUOTE
    after_quote = quotes << 8  # one shift for both uses (a shift costs a pass)
    quote_pairs = quotes & after_quote
    # The quote flag (bit 4) moved onto the punctuation flag (bit 1).
    with_quote = (punctuation_pairs & (quotes | after_quote) >> 3).bit_count()
    mixed = 0
    if b"'" in data and b'"' in data:
        singles = more_flags & _EVERY_SINGLE_QUOTE
        # The single-quote flag (bit 5) where it changes, moved onto the quote flag.
        mixed = ((singles ^ singles << 8) >> 1 & quote_pairs).bit_count()
    return quote_pairs.bit_count(), with_quote, mixed


def unmerged_pair_table(
    pair_tokens: Sequence[str],
    joined_pairs: Sequence[bytes] | None = None,
    splits_camel_case: Sequence[bool] = (),
) -> bytes:
    """The table of ``unmerged_pairs``: one byte per pair of bytes, at the pair read as a
    little-endian 16-bit number (the first | the second << 8), with bit ``v`` set where
    the pair is a token boundary of vocabulary ``v`` (at most 8 vocabularies).

    Pairs of ASCII characters: those that are not a two-character token of the
    vocabulary (``pair_tokens[v]``: its two-character tokens, concatenated). Two kinds of
    pair are left out, as longer tokens are built over them in real text: an apostrophe
    next to a letter (contractions: "I've" is one token of o200k, built over "I'") and a
    capital after a lower-case letter (camelCase: "CommandLine", "JavaScript" and
    "GitHub" are tokens of cl100k; counted, such pairs put the floor above the exact
    count of 5 of 3,947 texts of prose, code and agent traffic, and left out, of 2),
    but for a vocabulary whose ``splits_camel_case`` is true: its pre-tokenizer cuts the
    text before every capital that follows a lower-case letter, so no token it encodes
    spans one (o200k's: "Java" and "Script" are two pieces before any merge).

    Every other pair: those that no token of the vocabulary can span, read off its
    tokens' bytes (``joined_pairs[v]``, a bitmap of 65536 bits, ``joined_pair_bitmap``;
    without it, none is a boundary). Two readings of one table: bytes as they stand
    (``b3 09``, the end of "ó" before a tab), and, where the second byte is an ASCII
    character, the lead byte of the character before it instead of its last byte
    (``c3 09``: any character of U+00C0-U+00FF before a tab); a boundary in either is
    one. Unlike the ASCII rule, this one is exact: a token that spans the pair holds
    both bytes."""
    if len(pair_tokens) > 8:
        raise ValueError("at most 8 vocabularies fit the bits of a byte")
    if joined_pairs is not None and (
        len(joined_pairs) != len(pair_tokens)
        or any(len(bitmap) != 1 << 13 for bitmap in joined_pairs)
    ):
        raise ValueError("joined_pairs needs a bitmap of 65536 bits (8192 bytes) a vocabulary")
    if len(splits_camel_case) not in (0, len(pair_tokens)):
        raise ValueError("splits_camel_case needs one flag a vocabulary, or none")
    tokens = [frozenset(t[i : i + 2] for i in range(0, len(t), 2)) for t in pair_tokens]
    camel_splits = sum(1 << v for v, splits in enumerate(splits_camel_case) if splits)
    table = bytearray(1 << 16)
    for a, b in itertools.product(range(0x80), repeat=2):
        pair = chr(a) + chr(b)
        contraction = "'" in pair and pair.strip("'").isalpha()
        if contraction:
            continue
        if chr(a).islower() and chr(b).isupper():
            table[a | b << 8] = camel_splits
            continue
        for v, own in enumerate(tokens):
            table[a | b << 8] |= (pair not in own) << v
    boundaries = int.from_bytes(table, "little")
    for v, bitmap in enumerate(joined_pairs or ()):
        # One byte (0 or 1) per pair: 1 where no token joins it, the pairs of ASCII left out.
        unjoined = bitmap_bytes(bitmap, clear=True)
        boundaries |= (int.from_bytes(unjoined, "little") & _NOT_ASCII_PAIRS) << v
    return boundaries.to_bytes(1 << 16, "little")


def joined_pair_bitmap(token_bytes: Iterable[bytes]) -> bytes:
    """The bitmap ``unmerged_pair_table`` reads for one vocabulary, from the bytes of
    each of its tokens: bit ``a | b << 8`` set where some token holds byte ``a`` then
    byte ``b``, and, where ``b`` starts a character (is no continuation byte), where
    some token holds a character whose lead byte is ``a`` before it (a token that starts
    inside a character, its lead byte unseen, sets the pair for every lead byte)."""
    joined = bytearray(1 << 13)

    def join(key: int) -> None:
        joined[key >> 3] |= 1 << (key & 7)

    for token in token_bytes:
        lead = -1  # the lead byte of the character the token is in; -1: unseen
        for a, b in itertools.pairwise(token):
            if not _CONTINUATION_BYTE[a]:
                lead = a
            join(a | b << 8)
            if _CONTINUATION_BYTE[b] or not _CONTINUATION_BYTE[a]:
                continue
            for first in range(0xC0, 0x100) if lead < 0 else (lead,):
                join(first | b << 8)
    return bytes(joined)


_CONTINUATION_BYTE: Final = bytes(0x80 <= b < 0xC0 for b in range(256))


# Each byte as its eight bits, low bit first, a byte (0 or 1) each.
def bitmap_bytes(bitmap: bytes, clear: bool = False) -> bytes:
    """One byte (0 or 1) per bit of ``bitmap``, low bit first: 1 where the bit is set,
    or where it is clear if ``clear``; tables of one byte per entry are ORed from them,
    a bit per vocabulary."""
    flip = 0xFF if clear else 0
    return b"".join(_BITS_AS_BYTES[bits ^ flip] for bits in bitmap)


_BITS_AS_BYTES: Final = tuple(bytes(b >> i & 1 for i in range(8)) for b in range(256))
# 1 in the byte of every pair with a byte beyond ASCII, 0 in those of pairs of ASCII:
# keys run through the first byte within each second byte, so a second byte of ASCII
# gives a row of 128 zeros then 128 ones, one beyond ASCII a row of ones.
_NOT_ASCII_PAIRS: Final = int.from_bytes(
    (bytes(0x80) + b"\x01" * 0x80) * 0x80 + b"\x01" * (0x80 * 0x100), "little"
)

# The last continuation byte of a character and the ASCII character after it, with the
# lead byte of the first: where the table is read twice.
_CHARACTER_ENDS: Final = re.compile(rb"([^\x80-\xbf])[\x80-\xbf]*([\x80-\xbf])(?=([\x00-\x7f]))")


def reference_unmerged_pairs(table: bytes, vocabularies: int, data: bytes) -> tuple[int, ...]:
    """Per vocabulary (bit of ``table``, ``unmerged_pair_table``), the adjacent pairs of
    ``data`` (UTF-8, any length) that its bit marks: each pair of bytes as it stands
    and, where a character of several bytes ends before an ASCII character, the lead
    byte of the first with the second as well (a boundary if either is one; before a
    character beyond ASCII the bytes as they stand say nearly as much, and the lookups
    would be one a character of CJK text). One more than that is a count the vocabulary
    seldom goes below: BPE only ever merges two adjacent tokens into one of its tokens,
    so a boundary no token spans survives."""
    masks = collections.Counter(map(table.__getitem__, _pair_indexes(data, sys.byteorder)))
    for lead, last, after in _CHARACTER_ENDS.findall(data):
        second = after[0] << 8
        masks[table[lead[0] | second] & ~table[last[0] | second]] += 1
    return tuple(sum(n for mask, n in masks.items() if mask >> v & 1) for v in range(vocabularies))


def _pair_indexes(data: bytes, byteorder: str) -> Iterator[int]:
    """Each adjacent pair of ``data`` read as a little-endian 16-bit number. Where the
    machine is little-endian, the pairs that start at even offsets, then at odd ones,
    are two casts to 16-bit numbers, iterated in C."""
    if byteorder != "little":
        return map(operator.or_, data, map(operator.lshift, data[1:], itertools.repeat(8)))
    view = memoryview(data)
    even, odd = len(data) // 2 * 2, (len(data) - 1) // 2 * 2
    return itertools.chain(view[:even].cast("H"), view[1 : 1 + odd].cast("H"))


NOT_BUILT: Final = (
    "ctxbudget was installed without its C extension (ctxbudget.tokens._neighbours: no C "
    "compiler at install?): calibrated counts are the same, but about 30 times slower. "
    "Reinstall ctxbudget with a C compiler present to build it."
)
"""The warning given where the C extension is missing."""

Counts = Callable[[bytes, bool], tuple[int, ...]]
"""A function of ``data`` and ``line_start`` to the counts of ``NEIGHBOUR_NAMES``."""


def compiled_extension(warn: bool = True) -> ModuleType | None:
    """The C extension; None, with the ``NOT_BUILT`` warning unless ``warn`` is false
    (for a second use, once this module has warned), where the package was installed
    without it."""
    try:
        from ctxbudget.tokens import _neighbours
    except ImportError:
        if warn:
            warnings.warn(NOT_BUILT, RuntimeWarning, stacklevel=3)
        return None
    return _neighbours


def compiled_function(name: str) -> Any:
    """The C extension's function ``name``, or None where the package was built without
    it (this module warned at import already)."""
    extension = compiled_extension(warn=False)
    return None if extension is None else getattr(extension, name)


def _compiled() -> Counts | None:
    """The C extension's counts, for this module's tables; None where the package was
    installed without it."""
    extension = compiled_extension()
    if extension is None:
        return None
    counts: Counts = extension.Neighbours(FLAG_TABLE, MORE_FLAG_TABLE, LEAD_FLAG_TABLE).counts
    return counts


def reference_class_counts(data: bytes, table: bytes, classes: int) -> tuple[int, ...]:
    """How many bytes of ``data`` ``table`` (256 bytes: each byte value's class, 0 for
    none) puts in each of the classes 1 to ``classes``."""
    classified = data.translate(table)
    return tuple(classified.count(k) for k in range(1, classes + 1))


def reference_range_class_counts(
    data: bytes, first: int, table: bytes, bits: int
) -> tuple[int, ...]:
    """Over the characters of ``data`` (UTF-8) whose code points ``table`` covers (a
    16-bit little-endian mask each, from ``first`` on, within U+0800-U+FFFF), how many
    have each of the low ``bits`` bits of their mask set."""
    last = first + len(table) // 2
    totals = [0] * bits
    for character, n in collections.Counter(data.decode("utf-8", "surrogatepass")).items():
        code = ord(character)
        if first <= code < last:
            mask = table[2 * (code - first)] | table[2 * (code - first) + 1] << 8
            for b in range(bits):
                totals[b] += n * (mask >> b & 1)
    return tuple(totals)


RangeClassCounts = Callable[[bytes, int, bytes, int], tuple[int, ...]]
"""A function of ``data``, ``first``, ``table`` and ``bits`` to
``reference_range_class_counts``'."""

range_class_counts: Final[RangeClassCounts] = (
    compiled_function("range_class_counts") or reference_range_class_counts
)
"""``reference_range_class_counts``, computed by the C extension where it is built (one
pass over the bytes, where the definition decodes them)."""


UNICODE_SPACES: Final = "\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
"""White space beyond ASCII, as the members of a regular expression's class: the
next-line and no-break spaces, Ogham's space mark, the typographic spaces, the line and
paragraph separators, the narrow no-break, medium mathematical and ideographic spaces,
and the zero-width no-break space (a byte order mark)."""
_ASCII_WHITE_SPACE: Final = " \t\n\r\x0b\x0c"
# A space beyond ASCII before another white-space character than itself, or an ASCII one
# before a space beyond ASCII: a lookahead, so that the pairs, which overlap, all count.
_UNICODE_SPACE_CHANGE: Final = re.compile(
    f"(?=([{UNICODE_SPACES}])(?!\\1)[{_ASCII_WHITE_SPACE}{UNICODE_SPACES}]"
    f"|[{_ASCII_WHITE_SPACE}][{UNICODE_SPACES}])"
)


def reference_unicode_space_changes(data: bytes) -> int:
    """Of ``data`` (UTF-8), the pairs of adjacent white-space characters (ASCII space,
    tab, line feed, CR, VT, FF and ``UNICODE_SPACES``) that differ, one of them beyond
    ASCII: where white space of one kind gives way to another, a token ends."""
    return len(_UNICODE_SPACE_CHANGE.findall(data.decode("utf-8", "surrogatepass")))


unicode_space_changes: Final[Callable[[bytes], int]] = (
    compiled_function("unicode_space_changes") or reference_unicode_space_changes
)
"""``reference_unicode_space_changes``, computed by the C extension where it is built
(one pass over the bytes, where the definition decodes them and runs a lookahead at
every character)."""


ClassCounts = Callable[[bytes, bytes, int], tuple[int, ...]]
"""A function of ``data``, ``table`` and ``classes`` to ``reference_class_counts``'."""

class_counts: Final[ClassCounts] = compiled_function("class_counts") or reference_class_counts
"""``reference_class_counts``, computed by the C extension where it is built (one pass,
where the definition translates the bytes and counts each class apart)."""

compiled_counts: Final = _compiled()
"""The C extension's counts (the same as ``reference_counts``), or None where the
package was installed without it (no C compiler at install)."""

neighbour_counts: Final = compiled_counts or reference_counts
"""``reference_counts``, computed by the C extension where it is built."""


UnmergedPairs = Callable[[bytes], tuple[int, ...]]
"""A function of ``data`` to ``reference_unmerged_pairs``' counts, for one table."""


def unmerged_pairs_counter(table: bytes, vocabularies: int) -> UnmergedPairs:
    """``reference_unmerged_pairs`` for ``table`` and ``vocabularies``, computed by the C
    extension where it is built (its own copy of the table, read in one pass)."""
    extension = compiled_extension()
    if extension is None:
        return functools.partial(reference_unmerged_pairs, table, vocabularies)
    counts: UnmergedPairs = extension.UnmergedPairs(table, vocabularies).counts
    return counts
