"""Forced token boundaries: the fewest places where any split of a text into a
vocabulary's tokens must cut it, read off the bytes its tokens hold.

A byte-level BPE's tokens concatenate to the text, and each is one of its vocabulary's
byte strings. So where no token holds two adjacent bytes, every split cuts between
them; and where no token holds three adjacent bytes (``TRIPLE_ALPHABET`` characters
only: ASCII letters, digits and punctuation), every split cuts between the first and
the second or between the second and the third. Inside a run of such characters, a
piece between two cuts is itself a token: one character, a pair or a triple that is a
token, or four characters or more whose pairs and triples tokens hold; only the run's
first and last pieces may be parts of tokens reaching past it. The fewest cuts all that
allows, plus one, is a count the vocabulary never goes below, on any text: not a rule
of thumb about real text, as the ASCII pairs of ``pair_floors`` are
(``ctxbudget.tokens.features``). One exception, on the safe side: the literal text of a
special token its tokenizer matches whole (DeepSeek V4's ``<｜end▁of▁sentence｜>``, one
token to its Hugging Face tokenizer) is not among the tokens the tables are read from,
so it is counted as the pieces it is written in.

Random letters and base64, where a linear price of letters falls short, are mostly
triples no vocabulary learned, and pairs that are no token:
``"1FzfBUCUWIwyCQFlPqsB"`` is 14 cl100k tokens, 9-11 by the profiles' weights, 12 by
its triples' cuts and 13 by its fewest pieces.

A cut also says where the token after it begins: there. So where no token begins with
the two bytes after a cut, every split cuts between them too, and so on rightwards
(``_exact_cuts``). A character no vocabulary learned (a private-use one, or one of an
unassigned plane) is four byte tokens to all of them, where the pairs alone saw one or
two cuts in it, as some token of another character holds each pair of its bytes
(``"G\U00084486\n" * 4``: 24 tokens of each, 16-20 by the pairs' cuts); and in a short
base64 word, a cut before a capital (where o200k's pre-tokenizer cuts camel case) makes
the two letters after it a cut too where no token begins with them (``"tNIPdTg="``:
``"Tg"``). The same chain leftwards, before a cut, through pairs no token ends with,
found next to none of the texts below the guard's share for its time (the floors' pass
25-35 % slower, waiting for a cut after nearly every character of Chinese text). And a
pre-tokenizer that takes digits one to three at a time cuts a run of digits after every
third (``ForcedTables.digit_groups``).

The cuts are found in one pass: a pair no token holds is a cut (and so is each gap such
cuts chain to, and each of a run of digits), and a triple no token
holds that neither its first gap nor its second (a cut already) meets gets a cut at its
second gap, the rightmost choice, which meets the most triples still to come (the
greedy choice for points meeting intervals, which is optimal). Where a run's triples
cut it twice or more (``PIECES_AFTER``), its fewest pieces are counted by dynamic
programming over the run (``_least_pieces``). ``reference_forced_boundaries`` defines
the counts, and ``reference_pair_floors`` the floors of ``pair_floors``: the larger of
those and the unmerged pairs' rule of thumb. The C extension
(``ctxbudget.tokens._neighbours``, ``PairFloors``) computes the floors in one pass of
table lookups over the bytes, reading both rules at once, and the test suite holds it to
the reference on arbitrary text (``tests/tokens/test_boundaries.py``).
"""

from __future__ import annotations

import collections
import functools
import itertools
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ctxbudget.tokens.neighbours import (
    bitmap_bytes,
    compiled_extension,
    reference_unmerged_pairs,
)

__all__ = [
    "PIECES_AFTER",
    "TRIPLES",
    "TRIPLE_ALPHABET",
    "ForcedTables",
    "PairFloors",
    "forced_boundary_tables",
    "joined_triple_bitmap",
    "opening_pair_bitmap",
    "pair_floor_counter",
    "reference_forced_boundaries",
    "reference_pair_floors",
    "whole_triple_bitmap",
]

TRIPLE_ALPHABET: Final = (string.ascii_letters + string.digits + string.punctuation).encode("ascii")
"""The characters whose triples are looked up: those of words, numbers, hex, base64 and
base64url, and the punctuation code and Markdown write between them (94 ** 3 triples,
where any three bytes would be 2 ** 24; those that mix a letter or digit with a mark
outside ``BASE64_MARKS`` are taken as held, ``joined_triple_bitmap``). With the
punctuation, 8,000 random marks are counted 95-97 % of each vocabulary's count by its
profile, where the weights of cl100k's and DeepSeek V4's, fitted to the absolute error
of ordinary text, priced them at 65 % and 72 %."""

_SIZE: Final = len(TRIPLE_ALPHABET)
_NOT_IN_ALPHABET: Final = 0xFF
_ALPHABET_INDEX: Final = bytes(
    TRIPLE_ALPHABET.index(b) if b in TRIPLE_ALPHABET else _NOT_IN_ALPHABET for b in range(256)
)
"""Each byte's place in ``TRIPLE_ALPHABET``, or 0xFF."""

BASE64_MARKS: Final = b"+/=-_"
"""The punctuation of base64 and base64url, whose triples with letters and digits are
looked up (random keys and certificates are forced by them)."""

TRIPLES: Final = _SIZE**3
"""How many triples of ``TRIPLE_ALPHABET`` there are: bits of a ``joined_triple_bitmap``."""


class PairFloors(Protocol):
    """A function of ``data`` (and of the vocabularies ``wanted``, a mask) to
    ``reference_pair_floors``' counts, for one set of tables."""

    def __call__(self, data: bytes, wanted: int = ..., /) -> tuple[int, ...]: ...


def _triple_index(a: int, b: int, c: int) -> int:
    return (a * _SIZE + b) * _SIZE + c


def joined_triple_bitmap(token_bytes: Iterable[bytes]) -> bytes:
    """For one vocabulary, from the bytes of each of its tokens: bit ``(a * n + b) * n +
    c`` set where some token holds the characters of ``TRIPLE_ALPHABET`` at places a, b
    and c in a row (n: the alphabet's size), and for every triple that mixes a letter
    or digit with a punctuation mark outside ``BASE64_MARKS`` (``e.g``, ``f()``), taken
    as held: ordinary code is full of them, and looking them up took a table read that
    missed the cache at most bytes of code (the floors' pass over the dev corpus 44-48
    ms -> 56-72 ms), where the text they would force, random letters and marks, is forced
    by the triples of one kind or the other. A triple taken as held is a cut the floor
    does not count: it stays a lower bound."""
    joined = bytearray(_mixed_triples())
    for token in token_bytes:
        places = token.translate(_ALPHABET_INDEX)
        for a, b, c in zip(places, places[1:], places[2:], strict=False):
            if _NOT_IN_ALPHABET not in (a, b, c):
                key = _triple_index(a, b, c)
                joined[key >> 3] |= 1 << (key & 7)
    return bytes(joined)


def opening_pair_bitmap(token_bytes: Iterable[bytes]) -> bytes:
    """For one vocabulary, from the bytes of each of its tokens: bit ``a | b << 8`` set
    where some token begins with byte ``a`` then byte ``b``."""
    opening = bytearray(1 << 13)
    for token in token_bytes:
        if len(token) >= 2:
            key = token[0] | token[1] << 8
            opening[key >> 3] |= 1 << (key & 7)
    return bytes(opening)


def _mixed_triples() -> bytes:
    """Bit ``(a * n + b) * n + c`` set where the triple holds a letter or digit and a
    punctuation mark outside ``BASE64_MARKS`` (built a row of c at a time, as the
    digits of one binary number, lowest bit first)."""
    word = [chr(b).isalnum() for b in TRIPLE_ALPHABET]
    other = [b not in BASE64_MARKS and not chr(b).isalnum() for b in TRIPLE_ALPHABET]
    every, never = "1" * _SIZE, "0" * _SIZE
    mixed_with_a_mark = "".join("1" if o else "0" for o in other)
    mixed_with_a_word = "".join("1" if w else "0" for w in word)
    rows = []
    for a, b in itertools.product(range(_SIZE), repeat=2):
        has_word, has_other = word[a] or word[b], other[a] or other[b]
        if has_word and has_other:
            rows.append(every)
        elif has_word:
            rows.append(mixed_with_a_mark)
        elif has_other:
            rows.append(mixed_with_a_word)
        else:
            rows.append(never)
    return int("".join(rows)[::-1], 2).to_bytes((TRIPLES + 7) // 8, "little")


def whole_triple_bitmap(token_bytes: Iterable[bytes]) -> bytes:
    """For one vocabulary, from the bytes of each of its tokens: bit ``(a * n + b) * n +
    c`` set where a token is exactly the characters of ``TRIPLE_ALPHABET`` at places a,
    b and c (n: the alphabet's size)."""
    whole = bytearray((TRIPLES + 7) // 8)
    for token in token_bytes:
        places = token.translate(_ALPHABET_INDEX)
        if len(token) == 3 and _NOT_IN_ALPHABET not in places:
            key = _triple_index(*places)
            whole[key >> 3] |= 1 << (key & 7)
    return bytes(whole)


@dataclass(frozen=True, slots=True)
class ForcedTables:
    """The tables of ``reference_forced_boundaries``, one byte per entry with bit ``v``
    for vocabulary ``v`` (at most 8): ``pairs``, per pair of bytes (the first | the
    second << 8), set where no token holds it; ``triples``, per triple of
    ``TRIPLE_ALPHABET`` (``(a * n + b) * n + c`` of their places, n the alphabet's
    size), set where no token holds it; ``whole_pairs`` (``a * n + b``) and
    ``whole_triples``, set where a token is exactly those characters; ``unopened``, per
    pair of bytes, set where no token begins with it; and ``digit_groups``, the
    vocabularies whose pre-tokenizer cuts a run of digits after every third."""

    pairs: bytes
    triples: bytes
    whole_pairs: bytes
    whole_triples: bytes
    unopened: bytes
    digit_groups: int = 0


def forced_boundary_tables(
    joined_pairs: Sequence[bytes],
    joined_triples: Sequence[bytes],
    pair_tokens: Sequence[str],
    whole_triples: Sequence[bytes],
    opening_pairs: Sequence[bytes],
    groups_digits: Sequence[bool] = (),
) -> ForcedTables:
    """The tables of ``reference_forced_boundaries`` for at most 8 vocabularies, from
    each one's bitmap of the pairs of bytes its tokens hold (``joined_pairs[v]``,
    ``neighbours.joined_pair_bitmap``, 65536 bits), of the triples of alphabet
    characters they hold (``joined_triple_bitmap``), its two-character ASCII tokens
    (``pair_tokens[v]``, concatenated), its bitmap of three-character tokens
    (``whole_triple_bitmap``), its bitmap of the pairs its tokens begin with
    (``opening_pair_bitmap``) and whether its pre-tokenizer cuts runs of digits in
    threes (``groups_digits[v]``; none where not given)."""
    count = len(joined_pairs)
    if count > 8 or not (
        count == len(joined_triples) == len(pair_tokens) == len(whole_triples) == len(opening_pairs)
    ):
        raise ValueError(
            "forced_boundary_tables takes a pair and a triple bitmap, pair tokens, a "
            "bitmap of three-character tokens and a bitmap of the pairs tokens begin with "
            "for each of at most 8 vocabularies"
        )
    if any(len(b) != 1 << 13 for b in (*joined_pairs, *opening_pairs)) or any(
        len(b) != (TRIPLES + 7) // 8 for b in (*joined_triples, *whole_triples)
    ):
        raise ValueError(
            f"forced_boundary_tables takes pair bitmaps of {1 << 13} bytes and triple "
            f"bitmaps of {(TRIPLES + 7) // 8}"
        )
    whole_pairs = bytearray(_SIZE * _SIZE)
    for v, tokens in enumerate(pair_tokens):
        for i in range(0, len(tokens) - 1, 2):
            places = tokens[i : i + 2].encode("latin-1").translate(_ALPHABET_INDEX)
            if _NOT_IN_ALPHABET not in places:
                whole_pairs[places[0] * _SIZE + places[1]] |= 1 << v
    return ForcedTables(
        pairs=_by_entry(joined_pairs, 1 << 16, clear=True),
        triples=_by_entry(joined_triples, TRIPLES, clear=True),
        whole_pairs=bytes(whole_pairs),
        whole_triples=_by_entry(whole_triples, TRIPLES, clear=False),
        unopened=_by_entry(opening_pairs, 1 << 16, clear=True),
        digit_groups=sum(1 << v for v, groups in enumerate(groups_digits) if groups),
    )


def _by_entry(bitmaps: Sequence[bytes], entries: int, clear: bool) -> bytes:
    """One byte per entry, bit ``v`` set where bitmap ``v`` has that entry's bit set, or
    clear if ``clear`` (no token holds it)."""
    table = 0
    for v, bitmap in enumerate(bitmaps):
        table |= int.from_bytes(bitmap_bytes(bitmap, clear)[:entries], "little") << v
    return table.to_bytes(entries, "little")


def reference_forced_boundaries(
    tables: ForcedTables, vocabularies: int, data: bytes
) -> tuple[int, ...]:
    """Per vocabulary (bit of ``tables``), one more than the fewest token boundaries in
    ``data`` (bytes, any length) that its tables force; 0 for empty data.

    First the cuts: the exact ones (``_exact_cuts``: at every pair of bytes its bit
    marks in ``tables.pairs``, those such cuts chain to, and those of runs of digits);
    and for every triple of
    ``TRIPLE_ALPHABET`` characters its bit marks that neither gap meets yet, one at its
    second gap (walking left to right). Then, in a run of
    alphabet characters where triples added ``PIECES_AFTER`` cuts or more, the fewest
    pieces the run can be cut into (``_least_pieces``) may force more: every piece but
    the first and the last is a whole token, so one of one character, or two or three
    that are a token (``whole_pairs``, ``whole_triples``), or four or more whose pairs
    and triples tokens hold; the first and the last may be parts of tokens reaching
    beyond the run, made of held pairs and triples, unless a boundary is known there. A
    run's boundaries are at least one less than its pieces.

    The pairs' cuts are counted over the whole of ``data``; the rest lies within runs
    of alphabet characters and is a function of the run alone (its first triple's first
    gap is the run's own), so each distinct run is walked once however often the text
    repeats it (``_run_cuts``)."""
    if not data:
        return (0,) * vocabularies
    every = (1 << vocabularies) - 1
    exact = _exact_cuts(tables, data)
    masks = collections.Counter(exact)
    beyond = [0] * vocabularies
    # A run's cuts follow from it, its exact cuts and the cuts known before and after
    # it (gap g lies between data[g] and data[g + 1]).
    runs = collections.Counter(
        (
            run.group(),
            tuple(exact[run.start() : run.end() - 1]),
            every if run.start() == 0 else exact[run.start() - 1],
            every if run.end() == len(data) else exact[run.end() - 1],
        )
        for run in _ALPHABET_RUNS.finditer(data)
    )
    for (run, inside, closed_start, closed_end), times in runs.items():
        added, more = _run_cuts(tables, vocabularies, run, inside, closed_start, closed_end)
        for mask, n in added.items():
            masks[mask] += n * times
        beyond = [b + m * times for b, m in zip(beyond, more, strict=True)]
    return tuple(
        1 + beyond[v] + sum(n for mask, n in masks.items() if mask >> v & 1)
        for v in range(vocabularies)
    )


def _exact_cuts(tables: ForcedTables, data: bytes) -> list[int]:
    """Per gap of ``data`` (gap g between ``data[g]`` and ``data[g + 1]``), the
    vocabularies that cut it on any split: where no token holds its pair
    (``tables.pairs``); where the gap before is such a cut (or the text's start) and no
    token begins with its pair (``tables.unopened``), as the token after a cut starts
    there; and, for ``tables.digit_groups``, after every third digit of a run of ASCII
    digits, as their pre-tokenizers take digits one to three at a time from the first
    (a run after a character beyond ASCII is left out: it may be a digit too)."""
    exact = []
    before = (1 << 8) - 1  # the text's start: a boundary of every vocabulary
    digits = 0  # of the run ending at data[g], 0 where it is not counted
    for g in range(len(data) - 1):
        a, b = data[g], data[g + 1]
        if a not in _DIGITS:
            digits = 0
        elif g > 0 and data[g - 1] in _DIGITS:
            digits = digits + 1 if digits else 0
        else:
            digits = 1 if g == 0 or data[g - 1] < 0x80 else 0
        key = a | b << 8
        before = tables.pairs[key] | (before & tables.unopened[key])
        if digits and digits % 3 == 0 and b in _DIGITS:
            before |= tables.digit_groups
        exact.append(before)
    return exact


_DIGITS: Final = frozenset(b"0123456789")


PIECES_AFTER: Final = 2
"""The cuts a run's triples must add for a vocabulary before its fewest pieces are
looked for: random letters have one every three characters or so, a rare word one or
none. In every fifth text of the dev corpus, 18 % of the runs of alphabet characters
have a cut from their triples: 67 % of those one, 19 % two and 15 % three or more, and
the pieces raise the floor of 2 %, 7 % and 25 % of them. Looked for after two cuts,
they are 78 % of the raised floors, for a third of those runs; after three, 58 % for
15 %, and the guard's short base64 words (`"tNIPdTg="`) were below its share again."""

_ALPHABET_RUNS: Final = re.compile(b"[" + re.escape(TRIPLE_ALPHABET) + b"]{3,}")


def _run_cuts(
    tables: ForcedTables,
    vocabularies: int,
    run: bytes,
    exact: Sequence[int],
    closed_start: int,
    closed_end: int,
) -> tuple[collections.Counter[int], list[int]]:
    """The cuts the triples of ``run`` (alphabet characters) add to its exact cuts
    (``_exact_cuts``), counted by mask, and per vocabulary the boundaries its pieces
    force beyond all those cuts: walking the gaps left to right, a triple whose bit is
    set, met by neither the cut of its first gap nor the exact cut of its second, gets a
    cut at its second gap; where a vocabulary got ``PIECES_AFTER`` such cuts or more, the
    run is cut into its fewest pieces. ``closed_start`` and ``closed_end``: the
    vocabularies for which a token boundary is known before and after the run (the text
    ends there, or an exact cut), whose first or last piece is then a whole token too;
    ``exact``: the exact cuts of the run's gaps."""
    triples = tables.triples
    added: collections.Counter[int] = collections.Counter()
    places = run.translate(_ALPHABET_INDEX)
    before = exact[0]  # the cuts of the gap before
    cuts = collections.Counter((before,))  # every gap's cuts, by mask
    for i in range(1, len(run) - 1):
        paired = exact[i]
        extra = triples[_triple_index(places[i - 1], places[i], places[i + 1])] & ~before
        extra &= ~paired
        if extra:
            added[extra] += 1
        before = paired | extra
        cuts[before] += 1
    more = []
    for v in range(vocabularies):
        if sum(n for mask, n in added.items() if mask >> v & 1) < PIECES_AFTER:
            more.append(0)
            continue
        inside = sum(n for mask, n in cuts.items() if mask >> v & 1)
        pieces = _least_pieces(tables, v, places, closed_start >> v & 1, closed_end >> v & 1)
        more.append(max(0, pieces - 1 - inside))
    return added, more


def _least_pieces(
    tables: ForcedTables, v: int, places: bytes, closed_start: int, closed_end: int
) -> int:
    """The fewest pieces a run of alphabet characters (their ``places``) is cut into
    for vocabulary ``v`` (``reference_forced_boundaries`` says which pieces are
    allowed; the first is a whole token too where ``closed_start``, the last where
    ``closed_end``): ``least[i]`` for the first ``i`` characters, where a piece of four
    or more ends at ``i`` after any start within ``held`` characters (the longest
    stretch ending there whose pairs and triples tokens hold), the smallest of those
    ``least`` kept in a window that only moves right."""
    size = len(places)
    least = [0] * (size + 1)
    window: collections.deque[int] = collections.deque()  # starts, least increasing
    held = 0
    for i in range(1, size + 1):
        held = _held(tables, v, places, i, held)
        best = least[i - 1] + 1
        if i >= 2 and tables.whole_pairs[places[i - 2] * _SIZE + places[i - 1]] >> v & 1:
            best = min(best, least[i - 2] + 1)
        if i >= 3 and tables.whole_triples[_triple_index(*places[i - 3 : i])] >> v & 1:
            best = min(best, least[i - 3] + 1)
        if i >= 4:
            while window and least[window[-1]] >= least[i - 4]:
                window.pop()
            window.append(i - 4)
        while window and window[0] < i - held:
            window.popleft()
        if window:
            best = min(best, least[window[0]] + 1)
        # The first piece, where it may be part of a token: any held stretch.
        least[i] = 1 if held >= i and not closed_start else best
    if closed_end:
        return least[size]
    # The last piece, part of a token: any held stretch ending the run.
    return 1 + min(least[size - held : size])


def _held(tables: ForcedTables, v: int, places: bytes, i: int, held: int) -> int:
    """The longest stretch of characters ending at ``i`` (of ``places``) whose pairs
    and triples some token of vocabulary ``v`` holds, from the one ending at ``i - 1``."""
    if i == 1:
        return 1
    first, second = TRIPLE_ALPHABET[places[i - 2]], TRIPLE_ALPHABET[places[i - 1]]
    if tables.pairs[first | second << 8] >> v & 1:
        return 1
    if held >= 2 and not tables.triples[_triple_index(*places[i - 3 : i])] >> v & 1:
        return held + 1
    return 2


def reference_pair_floors(
    unmerged: bytes, tables: ForcedTables, vocabularies: int, data: bytes, wanted: int = -1
) -> tuple[int, ...]:
    """Per vocabulary, the larger of one more than its unmerged pairs of ``data``
    (``neighbours.reference_unmerged_pairs`` over the ``unmerged`` table, a rule of
    thumb about real text) and its forced boundaries (``reference_forced_boundaries``
    over ``tables``, which hold on any text); 0 for empty data, and for the
    vocabularies whose bit of ``wanted`` is not set (bit v: vocabulary v; every one
    by default), which a caller that keeps one floor need not have computed."""
    if not data:
        return (0,) * vocabularies
    return tuple(
        max(n + 1, least) if wanted >> v & 1 else 0
        for v, (n, least) in enumerate(
            zip(
                reference_unmerged_pairs(unmerged, vocabularies, data),
                reference_forced_boundaries(tables, vocabularies, data),
                strict=True,
            )
        )
    )


def pair_floor_counter(unmerged: bytes, tables: ForcedTables, vocabularies: int) -> PairFloors:
    """``reference_pair_floors`` for these tables, computed by the C extension where
    the package was built with it (its own copy of the tables, all read in one pass)."""
    extension = compiled_extension(warn=False)  # neighbours warned at import
    if extension is None:
        return functools.partial(reference_pair_floors, unmerged, tables, vocabularies)
    counts: PairFloors = extension.PairFloors(
        unmerged,
        tables.pairs,
        tables.triples,
        tables.whole_pairs,
        tables.whole_triples,
        _ALPHABET_INDEX,
        vocabularies,
        tables.unopened,
        tables.digit_groups,
    ).counts
    return counts
