"""The ASCII words of a text, looked up in the common-word table: the part of the text
features that looks at words, as ``WORD_COUNT_NAMES`` counts.

A word is a run of ASCII letters (every other byte ends one); its input is the text
as one byte per character (``ctxbudget.tokens.neighbours`` says how), with the letter
of each ``\\n``, ``\\t`` and ``\\r`` escape already blanked. The counts are defined by
``reference_word_counts`` below, over ``split()`` and set lookups in C; where the
package was built with its C extension (``ctxbudget.tokens._neighbours``), ``Words``
there computes the same tuple in one pass over the bytes, with no object made per word:
27 ms over the dev corpus against 117-127 ms (mixed-case work asked for on every
text). The test suite holds the two to the same tuple on arbitrary text
(``tests/tokens/test_words.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from itertools import compress, filterfalse
from typing import Final

from ctxbudget.tokens.neighbours import byte_span, compiled_extension

__all__ = [
    "BARE_BEFORE",
    "CAP",
    "COVER",
    "LONG_RUN",
    "LONG_WORD",
    "RARE_LETTERS",
    "SNAKE_VOCABULARIES",
    "WORD_COUNT_NAMES",
    "WORD_SPLIT",
    "WordCounts",
    "reference_word_counts",
    "word_counter",
]

SNAKE_VOCABULARIES: Final = ("cl100k", "o200k", "deepseek_v4", "qwen3")
"""The vocabularies whose snake_case parts and bare words are counted, in order."""

WORD_COUNT_NAMES: Final = (
    "words",
    "other_words",
    "other_letters",
    "capped_letters",
    "long_run_letters",
    "rare_letters",
    "consonant_triples",
    "upper_consonant_triples",
    "upper_case_tokens",
    "one_letter_words",
    "title_case_letters",
    *(f"snake_parts_split_{vocabulary}" for vocabulary in SNAKE_VOCABULARIES),
    *(f"bare_words_split_{vocabulary}" for vocabulary in SNAKE_VOCABULARIES),
    "uncommon_camel_parts",
    "mixed_case_long_word_letters",
    "common_camel_long_word_letters",
    "uncovered_letters",
)
"""The counts, in order: all words; those neither in the common-word table, nor among
the upper-case tokens, nor one-letter words (the other words); their letters; the same
with each word counted as at most ``CAP`` letters; the letters beyond the
``LONG_RUN``-th of each run of one case in an other word of more than ``LONG_WORD``
letters; the rare letters (``RARE_LETTERS``) and consonant triples of the other words
of at most ``LONG_WORD`` letters, those with a lower-case letter and those of three
capitals apart (``NSSCKFW`` is five triples, and ``NSS``, ``CK``, ``FW`` to o200k: an
acronym's capitals are joined in far fewer pieces than a run of lower-case
consonants); the words in the table of upper-case tokens (capitals that cl100k, o200k
and Qwen hold whole: ``MAJOR``, ``ENABLED``, C's macros and shouted headings, one
token where an uncommon word of their length costs two); the one-letter
words with no character beyond ASCII on either side (``x``, ``I``, the ``I`` of
``"scope": "I"``: a token of their own, or joined to the punctuation before them, where
a letter inside a word of another script, the ``V`` of ``Việt``, is priced as an other
word and by the joins); the letters beyond the ``CAP``-th of the other words of at most
``LONG_WORD`` letters in title case (a capital, then lower case: names, German nouns,
``Tlacoatzintepec``, which the vocabularies learned far less of than of lower-case
words); per vocabulary of ``snake_split`` (cl100k, o200k, DeepSeek V4, Qwen), the common
words right after an underscore that it does not hold whole with it (the parts of
snake_case names: DeepSeek V4 holds ``_input`` and ``_window``, and splits ``_cap`` into
``_c`` and ``ap``); per vocabulary of ``bare_split``, the common words written bare that
it does not hold whole (``BARE_BEFORE``: the text's first word, or one after a line
break, a digit, or a punctuation mark that itself follows punctuation or a space, as in
``{"filename":"reproduce.py"}``, where every pre-tokenizer cuts the marks off as a piece
of their own and DeepSeek V4 spells ``reproduce`` in three tokens); and, only where
asked for (``mixed``), of the other words of mixed case (neither lower, upper nor title
case), the camelCase parts that are not common words, and in those longer than
``LONG_WORD`` the letters beyond the ``LONG_WORD``-th: of the words with an uncommon part
(random letters, base64), then of the words made of common parts only
(``xmlOutputBufferCreateFilename``: five tokens, where a price by letters made it
ten); and of the lower-case and title-case other words of more than ``CAP`` and at most
``LONG_WORD`` letters, each one's length less what the longest common word it starts
with and the longest common word the rest ends with cover (each of ``COVER`` letters or
more, looked up in lower case), or less ``CAP`` where they cover fewer
(``uncovered_letters``: ``timestamps`` and ``readonly`` are common words end to end,
``tulevaisuudesta`` starts and ends with none)."""

CAP: Final = 4
COVER: Final = 3
"""The fewest letters of a common word that covers the start or the end of a longer
word for ``uncovered_letters``."""
LONG_WORD: Final = 16
LONG_RUN: Final = 12
RARE_LETTERS: Final = b"jkqvwxyzJKQVWXYZ"
_CONSONANTS: Final = b"bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ"

_LETTERS: Final = byte_span(0x41, 0x5A) + byte_span(0x61, 0x7A)
WORD_SPLIT: Final = bytes(b if b in _LETTERS else 0x20 for b in range(256))
"""Every byte that is not an ASCII letter as a space, so that ``split()`` yields the
words."""

_CAPPED: Final = bytes(min(n, CAP) for n in range(256))
# A letter with no letter and no character beyond ASCII (a lead byte) on either side.
_ONE_LETTER: Final = re.compile(rb"(?<![A-Za-z\x80-\xff])[A-Za-z](?![A-Za-z\x80-\xff])")
_IS_LONG: Final = bytes(int(n > LONG_WORD) for n in range(256))
_IS_SHORT: Final = bytes(int(n <= LONG_WORD) for n in range(256))
# Runs of one case longer than ``LONG_RUN`` (a shorter run adds nothing).
_LONG_CASE_RUN: Final = re.compile(rb"[a-z]{%d,}|[A-Z]{%d,}" % (LONG_RUN + 1, LONG_RUN + 1))
_CAMEL_PART: Final = re.compile(rb"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NOT_RARE_LETTERS: Final = bytes(b for b in range(256) if b not in RARE_LETTERS)
_CONSONANT_FLAGS: Final = bytes(int(b in _CONSONANTS) for b in range(256))
_UPPER_CONSONANT_FLAGS: Final = bytes(int(b in _CONSONANTS and b < 0x60) for b in range(256))
# For the C pass: 1 for a lower-case consonant, 2 for a capital one.
_CONSONANT_KINDS: Final = bytes(
    a + b for a, b in zip(_CONSONANT_FLAGS, _UPPER_CONSONANT_FLAGS, strict=True)
)
# A run of letters right after an underscore: a part of a snake_case name.
_SNAKE_PART: Final = re.compile(rb"(?<=_)[A-Za-z]+")
_MARKS: Final = bytes(
    b for b in range(0x21, 0x7F) if not (b in _LETTERS or 0x30 <= b <= 0x39 or b in b"_-")
)
BARE_BEFORE: Final = re.compile(
    rb"(?:^|(?<=[\n\r0-9])|(?<=[%s %s][%s]))[A-Za-z]+"
    % (re.escape(_MARKS), re.escape(b"_-"), re.escape(_MARKS))
)
"""A word written bare: the text's first, or one after a line break, a digit, or a mark
(ASCII punctuation but ``_`` and ``-``, whose words ``snake_parts_split_*`` and
``hyphen_joiners`` price) that follows a mark, ``_``, ``-`` or a space. A pre-tokenizer
joins one mark before letters to them (``.py``, ``/src``), but a run of two marks, or a
space and a mark, is a piece of its own, and the letters after it stand alone."""
_RARE_FLAGS: Final = bytes(int(b in RARE_LETTERS) for b in range(256))

WordCounts = Callable[[bytes, bool], tuple[int, ...]]
"""A function of ``spelled`` and ``mixed`` to the counts of ``WORD_COUNT_NAMES``."""


def reference_word_counts(
    common_words: Collection[bytes],
    common_parts: Collection[bytes],
    upper_case_tokens: Collection[bytes],
    spelled: bytes,
    mixed: bool,
    snake_split: Sequence[Collection[bytes]] = (),
    bare_split: Sequence[Collection[bytes]] = (),
) -> tuple[int, ...]:
    """The counts of ``WORD_COUNT_NAMES`` of ``spelled``: ``common_words`` is the
    common-word table, ``common_parts`` the common words as camelCase parts are spelled
    ("valid", "Valid", "VALID"), ``upper_case_tokens`` the table of upper-case tokens
    (none of them a common word); ``mixed``: whether to count the mixed-case words'
    features (else 0: the caller knows from the neighbour counts that there are none);
    ``snake_split``: per vocabulary of ``SNAKE_VOCABULARIES``, the common words it splits
    after an underscore, and ``bare_split`` those it splits written bare (none given:
    those counts are 0)."""
    bare_words = (
        [w for w in BARE_BEFORE.findall(spelled) if w in common_words] if bare_split else []
    )
    bare = tuple(sum(map(split.__contains__, bare_words)) for split in bare_split)
    snake_parts = (
        [p for p in _SNAKE_PART.findall(spelled) if p in common_words]
        if snake_split and b"_" in spelled
        else []
    )
    snake = tuple(sum(map(split.__contains__, snake_parts)) for split in snake_split)
    one_letter_words = [
        m.group() for m in _ONE_LETTER.finditer(spelled) if m.group() not in common_words
    ]
    if one_letter_words:
        spelled = _ONE_LETTER.sub(
            lambda m: m.group() if m.group() in common_words else b" ", spelled
        )
    words = spelled.translate(WORD_SPLIT).split()
    not_common = list(filterfalse(common_words.__contains__, words))
    other_words = list(filterfalse(upper_case_tokens.__contains__, not_common))
    other_letters, capped_letters, long_words, short_words = _letters(other_words)
    rare_letters, consonant_triples, upper_triples = _rare_letters_and_triples(short_words)
    uncommon_parts = mixed_long_letters = common_camel_long_letters = 0
    if mixed:
        uncommon_parts = _uncommon_camel_parts(other_words, common_parts)
        mixed_long_letters, common_camel_long_letters = _mixed_case_long_word_letters(
            long_words, common_parts
        )
    return (
        len(words) + len(one_letter_words),
        len(other_words),
        other_letters,
        capped_letters,
        _long_run_letters(long_words),
        rare_letters,
        consonant_triples - upper_triples,
        upper_triples,
        len(not_common) - len(other_words),
        len(one_letter_words),
        sum(len(w) - CAP for w in short_words if len(w) > CAP and w.istitle()),
        *(snake or (0,) * len(SNAKE_VOCABULARIES)),
        *(bare or (0,) * len(SNAKE_VOCABULARIES)),
        uncommon_parts,
        mixed_long_letters,
        common_camel_long_letters,
        sum(_uncovered_letters(w, common_words) for w in short_words if len(w) > CAP),
    )


def _uncovered_letters(word: bytes, common_words: Collection[bytes]) -> int:
    """For a lower-case or title-case ``word``: its length less what the longest common
    word it starts with and the longest common word the rest of it ends with cover
    (common words of ``COVER`` letters or more, the first shorter than the word; looked
    up in lower case, so that ``Value`` is covered by ``value``), or less ``CAP`` where
    they cover fewer (its first ``CAP`` letters are priced as every word's); 0 for a
    word of other case. Vocabularies learned the pieces of English and of code far
    better than those of other languages: a word that is no common word but starts or
    ends with one is mostly those pieces."""
    if word.istitle():  # a capital, then lower case: looked up as the lower-case word
        word = word.lower()
    elif not word.islower():
        return 0
    length = len(word)
    start = next((k for k in range(length - 1, COVER - 1, -1) if word[:k] in common_words), 0)
    end = next(
        (k for k in range(length - start, COVER - 1, -1) if word[length - k :] in common_words),
        0,
    )
    return max(0, length - max(start + end, CAP))


def word_counter(
    common_words: Iterable[bytes],
    common_parts: Iterable[bytes],
    upper_case_tokens: Iterable[bytes],
    snake_split: Sequence[Iterable[bytes]] = (),
    bare_split: Sequence[Iterable[bytes]] = (),
) -> WordCounts:
    """``reference_word_counts`` for these tables, computed by the C extension where the
    package was built with it (which builds a table of its own from them)."""
    if len(snake_split) not in (0, len(SNAKE_VOCABULARIES)):
        raise ValueError(f"snake_split: one collection per {SNAKE_VOCABULARIES}, or none")
    if len(bare_split) not in (0, len(SNAKE_VOCABULARIES)):
        raise ValueError(f"bare_split: one collection per {SNAKE_VOCABULARIES}, or none")
    extension = compiled_extension(warn=False)  # neighbours warned at import
    if extension is None:
        # Copied from a set, so that the table is sized for its members (1 MB, where one
        # grown item by item is twice as large): fewer cache misses on every word.
        words, parts = frozenset(set(common_words)), frozenset(set(common_parts))
        upper = frozenset(set(upper_case_tokens))
        split = tuple(frozenset(set(vocabulary)) for vocabulary in snake_split)
        bare = tuple(frozenset(set(vocabulary)) for vocabulary in bare_split)
        return functools.partial(
            reference_word_counts, words, parts, upper, snake_split=split, bare_split=bare
        )
    counts: WordCounts = extension.Words(
        tuple(common_words),
        tuple(common_parts),
        tuple(upper_case_tokens),
        _RARE_FLAGS,
        _CONSONANT_KINDS,
        CAP,
        LONG_WORD,
        LONG_RUN,
        COVER,
        tuple(tuple(vocabulary) for vocabulary in snake_split),
        tuple(tuple(vocabulary) for vocabulary in bare_split),
    ).counts
    return counts


def _letters(words: list[bytes]) -> tuple[int, int, list[bytes], list[bytes]]:
    """Letters in ``words``, the same with each word counted as at most ``CAP``, and
    the words longer than ``LONG_WORD`` letters and the others."""
    if not words:
        return 0, 0, [], []
    try:
        packed = bytes(map(len, words))  # one byte per word, so the capping runs in C
    except ValueError:  # a word of more than 255 letters
        lengths = list(map(len, words))
        long_words = [w for w in words if len(w) > LONG_WORD]
        short_words = [w for w in words if len(w) <= LONG_WORD]
        return sum(lengths), sum(min(n, CAP) for n in lengths), long_words, short_words
    if max(packed) > LONG_WORD:
        long_words = list(compress(words, packed.translate(_IS_LONG)))
        short_words = list(compress(words, packed.translate(_IS_SHORT)))
    else:
        long_words, short_words = [], words
    return sum(packed), sum(packed.translate(_CAPPED)), long_words, short_words


def _long_run_letters(long_words: list[bytes]) -> int:
    """Of ``long_words``: the letters beyond the ``LONG_RUN``-th of each run of one case."""
    if not long_words:
        return 0
    # Joined by a space (no letter), no run spans two words.
    long_runs = _LONG_CASE_RUN.findall(b" ".join(long_words))
    return sum(map(len, long_runs)) - LONG_RUN * len(long_runs)


def _rare_letters_and_triples(short_words: list[bytes]) -> tuple[int, int, int]:
    """The rare letters, consonant triples and triples of capital consonants of
    ``short_words``: one flag byte per letter (0 for the spaces joining the words, so
    that no triple spans two), and a triple is a flag whose two previous bytes are flags
    too."""
    if not short_words:
        return 0, 0, 0
    joined = b" ".join(short_words)
    rare = len(joined.translate(None, _NOT_RARE_LETTERS))
    consonants = int.from_bytes(joined.translate(_CONSONANT_FLAGS), "little")
    capitals = int.from_bytes(joined.translate(_UPPER_CONSONANT_FLAGS), "little")
    return (
        rare,
        (consonants & consonants << 8 & consonants << 16).bit_count(),
        (capitals & capitals << 8 & capitals << 16).bit_count(),
    )


def _uncommon_camel_parts(other_words: list[bytes], common_parts: Collection[bytes]) -> int:
    """Parts of the mixed-case words among ``other_words`` (a capital and the lower-case
    letters after it, or a run of capitals) that are not in ``common_parts``."""
    # Three passes in C rather than one in Python.
    mixed = list(
        filterfalse(
            bytes.istitle, filterfalse(bytes.isupper, filterfalse(bytes.islower, other_words))
        )
    )
    if not mixed:
        return 0
    parts = _CAMEL_PART.findall(b" ".join(mixed))
    return len(parts) - sum(map(common_parts.__contains__, parts))


def _mixed_case_long_word_letters(
    long_words: list[bytes], common_parts: Collection[bytes]
) -> tuple[int, int]:
    """Letters beyond the ``LONG_WORD``-th of the mixed-case words of ``long_words``: of
    those with a part not in ``common_parts``, and of the others."""
    with_uncommon = only_common = 0
    for word in long_words:
        if word.islower() or word.isupper() or word.istitle():
            continue
        if all(map(common_parts.__contains__, _CAMEL_PART.findall(word))):
            only_common += len(word) - LONG_WORD
        else:
            with_uncommon += len(word) - LONG_WORD
    return with_uncommon, only_common
