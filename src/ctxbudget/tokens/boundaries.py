"""Forced token boundaries: the fewest places where any split of a text into a
vocabulary's tokens must cut it, read off the bytes its tokens hold.

A byte-level BPE's tokens concatenate to the text, and each is one of its vocabulary's
byte strings. So where no token holds two adjacent bytes, every split cuts between
them; and where no token holds three adjacent bytes (``TRIPLE_ALPHABET`` characters
only: letters, digits and the marks of base64), every split cuts between the first and
the second or between the second and the third. The fewest cuts meeting every such
pair and triple, plus one, is a count the vocabulary never goes below, on any text:
not a rule of thumb about real text, as the ASCII pairs of ``pair_floors`` are
(``ctxbudget.tokens.features``). One exception, on the safe side: the literal text of a
special token its tokenizer matches whole (DeepSeek V4's ``<｜end▁of▁sentence｜>``, one
token to its Hugging Face tokenizer) is not among the tokens the tables are read from,
so it is counted as the pieces it is written in. Random letters and base64, where a linear price of
letters falls short (``"1FzfBUCUWIwyCQFlPqsB"``: 14 cl100k tokens, 9-11 for the
profiles' weights), are mostly triples no vocabulary learned: 12 of those 14 are forced.

The fewest cuts are found in one pass: a pair no token holds is a cut, and a triple no
token holds that neither its first gap nor its second (a cut already) meets gets a cut
at its second gap, the rightmost choice, which meets the most triples still to come
(the greedy choice for points meeting intervals, which is optimal).
``reference_forced_boundaries`` defines the counts, and ``reference_pair_floors`` the
floors of ``pair_floors``: the larger of those and the unmerged pairs' rule of thumb. The
C extension (``ctxbudget.tokens._neighbours``, ``PairFloors``) computes the floors in one
pass of table lookups over the bytes, reading both rules at once (a third less time than a
pass each), and the test suite holds it to the reference on arbitrary text
(``tests/tokens/test_boundaries.py``).
"""

from __future__ import annotations

import collections
import functools
import itertools
import operator
import re
import string
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from ctxbudget.tokens.neighbours import compiled_extension, reference_unmerged_pairs

__all__ = [
    "TRIPLES",
    "TRIPLE_ALPHABET",
    "PairFloors",
    "forced_boundary_tables",
    "joined_triple_bitmap",
    "pair_floor_counter",
    "reference_forced_boundaries",
    "reference_pair_floors",
]

TRIPLE_ALPHABET: Final = (string.ascii_letters + string.digits + "+/=-_").encode("ascii")
"""The characters whose triples are looked up: those of words, numbers, hex, base64 and
base64url (67 ** 3 triples, where any three bytes would be 2 ** 24)."""

_SIZE: Final = len(TRIPLE_ALPHABET)
_NOT_IN_ALPHABET: Final = 0xFF
_ALPHABET_INDEX: Final = bytes(
    TRIPLE_ALPHABET.index(b) if b in TRIPLE_ALPHABET else _NOT_IN_ALPHABET for b in range(256)
)
"""Each byte's place in ``TRIPLE_ALPHABET``, or 0xFF."""

TRIPLES: Final = _SIZE**3
"""How many triples of ``TRIPLE_ALPHABET`` there are: bits of a ``joined_triple_bitmap``."""

PairFloors = Callable[[bytes], tuple[int, ...]]
"""A function of ``data`` to ``reference_pair_floors``' counts, for one set of tables."""


def _triple_index(a: int, b: int, c: int) -> int:
    return (a * _SIZE + b) * _SIZE + c


def joined_triple_bitmap(token_bytes: Iterable[bytes]) -> bytes:
    """For one vocabulary, from the bytes of each of its tokens: bit ``(a * n + b) * n +
    c`` set where some token holds the characters of ``TRIPLE_ALPHABET`` at places a, b
    and c in a row (n: the alphabet's size)."""
    joined = bytearray((TRIPLES + 7) // 8)
    for token in token_bytes:
        places = token.translate(_ALPHABET_INDEX)
        for a, b, c in zip(places, places[1:], places[2:], strict=False):
            if _NOT_IN_ALPHABET not in (a, b, c):
                key = _triple_index(a, b, c)
                joined[key >> 3] |= 1 << (key & 7)
    return bytes(joined)


def forced_boundary_tables(
    joined_pairs: Sequence[bytes], joined_triples: Sequence[bytes]
) -> tuple[bytes, bytes]:
    """The two tables ``reference_forced_boundaries`` reads, for at most 8 vocabularies:
    one byte per pair of bytes (the first | the second << 8) and one per triple of
    ``TRIPLE_ALPHABET`` (``_triple_index``), with bit ``v`` set where no token of
    vocabulary ``v`` holds it. ``joined_pairs[v]``: a bitmap of 65536 bits of the pairs
    its tokens hold (``neighbours.joined_pair_bitmap``); ``joined_triples[v]``: that of
    ``joined_triple_bitmap``."""
    if len(joined_pairs) > 8 or len(joined_pairs) != len(joined_triples):
        raise ValueError("forced_boundary_tables takes one pair and one triple bitmap each")
    if any(len(b) != 1 << 13 for b in joined_pairs) or any(
        len(b) != (TRIPLES + 7) // 8 for b in joined_triples
    ):
        raise ValueError(
            f"forced_boundary_tables takes pair bitmaps of {1 << 13} bytes and triple "
            f"bitmaps of {(TRIPLES + 7) // 8}"
        )
    return _unjoined(joined_pairs, 1 << 16), _unjoined(joined_triples, TRIPLES)


def _unjoined(bitmaps: Sequence[bytes], bits: int) -> bytes:
    """One byte per bit position, bit ``v`` set where bitmap ``v`` has a 0 there."""
    table = 0
    for v, bitmap in enumerate(bitmaps):
        # Each bit as a byte (0 or 1), low bit first, inverted: 1 where none holds it.
        unjoined = b"".join(_BITS_AS_BYTES[~bits_ & 0xFF] for bits_ in bitmap)[:bits]
        table |= int.from_bytes(unjoined, "little") << v
    return table.to_bytes(bits, "little")


_BITS_AS_BYTES: Final = tuple(bytes(b >> i & 1 for i in range(8)) for b in range(256))


def reference_forced_boundaries(
    pairs: bytes, triples: bytes, vocabularies: int, data: bytes
) -> tuple[int, ...]:
    """Per vocabulary (bit of the tables of ``forced_boundary_tables``), one more than
    the fewest cuts in ``data`` (bytes, any length) that meet every adjacent pair of
    bytes and every triple of ``TRIPLE_ALPHABET`` characters its bit marks; 0 for empty
    data.

    The pairs' cuts are counted over the whole of ``data``; the triples' lie within runs
    of alphabet characters, and what they add to a run is a function of the run alone
    (its first triple's first gap is the run's own), so each distinct run is walked once
    however often the text repeats it (``_cuts_of_triples``)."""
    if not data:
        return (0,) * vocabularies
    keys = map(operator.or_, data, map(operator.lshift, data[1:], itertools.repeat(8)))
    masks = collections.Counter(map(pairs.__getitem__, keys))
    for run, times in collections.Counter(_ALPHABET_RUNS.findall(data)).items():
        for mask, n in _cuts_of_triples(pairs, triples, run).items():
            masks[mask] += n * times
    return tuple(
        1 + sum(n for mask, n in masks.items() if mask >> v & 1) for v in range(vocabularies)
    )


_ALPHABET_RUNS: Final = re.compile(b"[" + re.escape(TRIPLE_ALPHABET) + b"]{3,}")


def _cuts_of_triples(pairs: bytes, triples: bytes, run: bytes) -> collections.Counter[int]:
    """The cuts the triples of ``run`` (alphabet characters) add to those of its pairs,
    counted by mask: walking the gaps left to right, a triple whose bit is set, met by
    neither the cut of its first gap nor that of the pair of its second, gets a cut at
    its second gap."""
    added: collections.Counter[int] = collections.Counter()
    places = run.translate(_ALPHABET_INDEX)
    before = pairs[run[0] | run[1] << 8]  # the cuts of the gap before
    for i in range(1, len(run) - 1):
        paired = pairs[run[i] | run[i + 1] << 8]
        extra = triples[_triple_index(places[i - 1], places[i], places[i + 1])] & ~before
        extra &= ~paired
        if extra:
            added[extra] += 1
        before = paired | extra
    return added


def reference_pair_floors(
    unmerged: bytes, pairs: bytes, triples: bytes, vocabularies: int, data: bytes
) -> tuple[int, ...]:
    """Per vocabulary, the larger of one more than its unmerged pairs of ``data``
    (``neighbours.reference_unmerged_pairs`` over the ``unmerged`` table, a rule of
    thumb about real text) and its forced boundaries (``reference_forced_boundaries``
    over ``pairs`` and ``triples``, which hold on any text); 0 for empty data."""
    if not data:
        return (0,) * vocabularies
    return tuple(
        max(n + 1, least)
        for n, least in zip(
            reference_unmerged_pairs(unmerged, vocabularies, data),
            reference_forced_boundaries(pairs, triples, vocabularies, data),
            strict=True,
        )
    )


def pair_floor_counter(
    unmerged: bytes, pairs: bytes, triples: bytes, vocabularies: int
) -> PairFloors:
    """``reference_pair_floors`` for these tables, computed by the C extension where
    the package was built with it (its own copy of the tables, all read in one pass)."""
    extension = compiled_extension(warn=False)  # neighbours warned at import
    if extension is None:
        return functools.partial(reference_pair_floors, unmerged, pairs, triples, vocabularies)
    counts: PairFloors = extension.PairFloors(
        unmerged, pairs, triples, _ALPHABET_INDEX, vocabularies
    ).counts
    return counts
