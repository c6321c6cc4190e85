"""The word counts: the C pass (``_neighbours.Words``) gives the tuple of their
definition (``reference_word_counts``), on the shipped tables and on made-up ones, and
each count means what ``WORD_COUNT_NAMES`` says."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import words
from ctxbudget.tokens.features import _camel_spellings, _tables, _words_split
from ctxbudget.tokens.words import WORD_COUNT_NAMES, reference_word_counts, word_counter

_WORDISH = st.lists(
    st.one_of(
        st.text("abcdeqxyzABCDEQXYZ", min_size=1, max_size=24),
        st.sampled_from(
            ["the", "The", "THE", "value", "Value", "getValue", "XMLHttpRequest", "MAJOR", "QZ"]
        ),
        st.text(" _.-'\\n\t\r\"{}:/0123456789\x80\xc3\xe4", min_size=1, max_size=3),
    ),
    max_size=40,
).map("".join)
_TABLE = st.frozensets(st.binary(min_size=1, max_size=6).map(bytes.lower), max_size=30)
_UPPER_TABLE = st.frozensets(st.binary(min_size=1, max_size=6).map(bytes.upper), max_size=30)
_SMALL_WORDS = frozenset([b"the", b"value", b"get", b"xml", b"http", b"request", b"ab"])
_SMALL_PARTS = frozenset(
    [*_SMALL_WORDS, *(w.capitalize() for w in _SMALL_WORDS), *(w.upper() for w in _SMALL_WORDS)]
)
_SMALL_UPPER = frozenset([b"VALUE", b"MAJOR"])


def _compiled(
    common: frozenset[bytes], parts: frozenset[bytes], upper: frozenset[bytes] = _SMALL_UPPER
) -> words.WordCounts:
    counts = word_counter(common, parts, upper)
    if type(getattr(counts, "__self__", None)).__name__ != "Words":
        pytest.fail("the C extension is not built: install with a C compiler (make test does)")
    return counts


# No deadline: the first example loads the shipped tables (over 200 ms when this file
# runs alone), which is not what the property is about.
@settings(max_examples=500, deadline=None)
@given(st.one_of(_WORDISH.map(str.encode), st.binary(max_size=200)), st.booleans())
def test_compiled_word_counts_equal_the_definition_on_the_shipped_tables(
    spelled: bytes, mixed: bool
) -> None:
    """With the common-word table the features use, any bytes count the same both ways."""
    table = _tables().word_counts
    assert type(getattr(table, "__self__", None)).__name__ == "Words", "the features use C"
    common, parts, upper = _shipped_sets()
    expected = reference_word_counts(
        common,
        parts,
        upper,
        spelled,
        mixed,
        snake_split=_shipped_split("snake_parts_held"),
        bare_split=_shipped_split("bare_words_held"),
    )
    assert table(spelled, mixed) == expected


@settings(max_examples=300)
@given(_TABLE, _TABLE, _UPPER_TABLE, _WORDISH.map(str.encode), st.booleans())
def test_compiled_word_counts_equal_the_definition_on_any_tables(
    common: frozenset[bytes],
    parts: frozenset[bytes],
    upper: frozenset[bytes],
    spelled: bytes,
    mixed: bool,
) -> None:
    """Made-up tables (any bytes, colliding hashes and all) count the same both ways, and
    with made-up sets of snake_case parts and of words split bare (words common or not:
    only common ones count)."""
    expected = reference_word_counts(common, parts, upper, spelled, mixed)
    assert _compiled(common, parts, upper)(spelled, mixed) == expected
    split = tuple(frozenset(w for w in common | parts if (sum(w) + v) % 2) for v in range(4))
    bare = tuple(frozenset(w for w in common | parts if (sum(w) + v) % 3) for v in range(4))
    expected = reference_word_counts(
        common, parts, upper, spelled, mixed, snake_split=split, bare_split=bare
    )
    assert word_counter(common, parts, upper, split, bare)(spelled, mixed) == expected


def test_each_word_count_means_what_its_name_says() -> None:
    """A worked example per count, both ways."""
    text = (
        b"the zyzzyva getValue fooBar XMLHttpRequest qqqqqqqqqqqqqqqqqqqq strk Ab "
        b"abcdefghijklmnopqrsTuv MAJOR Value THE XQ x"
    )
    expected = {
        "words": 14,
        # All but "the", the upper-case token "MAJOR" and the one-letter word "x"
        # ("Value", "THE" and "XQ" are in neither table).
        "other_words": 11,
        "other_letters": 7 + 8 + 6 + 14 + 20 + 4 + 2 + 22 + 5 + 3 + 2,
        "capped_letters": 4 * 7 + 2 + 4 + 3 + 2,
        # Words of more than 16 letters: q*20 (20 - 12) and the last (19 - 12).
        "long_run_letters": 8 + 7,
        # Short words only: z y z z y v, V, X q, k, V, X Q.
        "rare_letters": 6 + 1 + 2 + 1 + 1 + 2,
        # Three consonants in a row: XMLHttpR holds six, strk two (y is no consonant);
        # two of them are capitals only (XML, MLH), counted apart.
        "consonant_triples": 4 + 2,
        "upper_consonant_triples": 2,
        "upper_case_tokens": 1,
        "one_letter_words": 1,
        # Other words of 5-16 letters in title case: "Value" (one beyond four).
        "title_case_letters": 1,
        # No snake_case parts nor bare words: the tables of split words are not given.
        **dict.fromkeys((n for n in WORD_COUNT_NAMES if n.startswith("snake_parts_")), 0),
        **dict.fromkeys((n for n in WORD_COUNT_NAMES if n.startswith("bare_words_")), 0),
        # Mixed case: getValue (get, Value: common), fooBar (foo, Bar), XMLHttpRequest
        # (XML, Http, Request: common), the last (both parts); "Ab" is title case.
        "uncommon_camel_parts": 2 + 2,
        "mixed_case_long_word_letters": 22 - 16,
        # Long mixed-case words of common parts only: none here.
        "common_camel_long_word_letters": 0,
        # Lower-case other words of 5-16 letters: zyzzyva starts and ends with no common
        # word (three letters beyond four).
        "uncovered_letters": 3,
    }
    small = (_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER)
    mixed = slice(-4, -1)  # the counts asked for only with mixed-case words
    for count in (_compiled(*small), _reference(*small)):
        assert dict(zip(WORD_COUNT_NAMES, count(text, True), strict=True)) == expected
        unmixed = count(text, False)
        assert unmixed[mixed] == (0, 0, 0)
        assert [c for i, c in enumerate(unmixed) if i not in range(len(unmixed))[mixed]] == [
            c for i, c in enumerate(count(text, True)) if i not in range(len(unmixed))[mixed]
        ]


@pytest.mark.parametrize(
    ("word", "uncovered"),
    [
        (b"getvalue", 0),  # get + value: common words end to end
        (b"thexml", 0),  # the + xml
        (b"thevaluexml", 5),  # the longest start ("the"), then the longest end ("xml")
        (b"requestzzzz", 4),  # request covers 7 of 11
        (b"zzzzzvalue", 5),  # value covers the last 5 of 10
        (b"zzzzzzz", 3),  # nothing covered: the letters beyond the first four
        (b"zzzzz", 1),
        (b"valuex", 1),
        (b"Zzzzzzz", 3),  # title case: looked up in lower case
        (b"Getvalue", 0),
        (b"Requestzzzz", 4),
        (b"ZzzzzZz", 0),  # mixed case: priced by its camelCase parts
        (b"zzzzzzzzzzzzzzzzz", 0),  # 17 letters: a long word, priced by its runs
    ],
)
def test_uncovered_letters_are_what_common_words_at_either_end_leave(
    word: bytes, uncovered: int
) -> None:
    """``uncovered_letters``: a lower-case or title-case other word's length less what
    the longest common word it starts with and the longest the rest ends with cover, or
    less four where they cover fewer; the same in C and by definition."""
    small = (_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER)
    for count in (_compiled(*small), _reference(*small)):
        found = dict(zip(WORD_COUNT_NAMES, count(b" " + word + b" ", False), strict=True))
        assert found["uncovered_letters"] == uncovered


def test_snake_case_parts_count_per_vocabulary_that_splits_them() -> None:
    """A common word right after an underscore counts for each vocabulary whose table of
    split parts holds it; the first word of a name, a part that is not common and a word
    after any other mark do not."""
    split = (frozenset([b"value"]), frozenset(), frozenset([b"value", b"get"]), frozenset())
    text = b"get_value get_the_value foo_zyzzyva value.get _get"
    for count in (
        word_counter(_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER, split),
        functools.partial(
            reference_word_counts, _SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER, snake_split=split
        ),
    ):
        found = dict(zip(WORD_COUNT_NAMES, count(text, False), strict=True))
        assert [found[f"snake_parts_split_{v}"] for v in words.SNAKE_VOCABULARIES] == [2, 0, 3, 0]


def test_bare_words_count_per_vocabulary_that_splits_them() -> None:
    """A common word written bare (first in the text, after a line break, a digit, or a
    mark that follows a mark or a space) counts for each vocabulary whose table of words
    split bare holds it; after a space, one mark joined to it, an underscore or a hyphen,
    or when not common, it does not."""
    bare = (frozenset([b"value"]), frozenset(), frozenset([b"value", b"get"]), frozenset())
    text = b'value {"get":"value"} 3value\nget "value (value\t.value _value x-value zyzzyva'
    # Bare: value (first), get and value after '{"' and '":"', value after a digit, get
    # after a line break, value after ' "' and ' ('; not: .value, _value, -value, \tvalue.
    for count in (
        word_counter(_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER, (), bare),
        functools.partial(
            reference_word_counts, _SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER, bare_split=bare
        ),
    ):
        found = dict(zip(WORD_COUNT_NAMES, count(text, False), strict=True))
        assert [found[f"bare_words_split_{v}"] for v in words.SNAKE_VOCABULARIES] == [5, 0, 7, 0]


@pytest.mark.parametrize("keyword", ["snake_split", "bare_split"])
def test_split_word_tables_are_one_per_vocabulary_or_none(keyword: str) -> None:
    """Tables of split words for some vocabularies only are refused with what is needed."""
    with pytest.raises(ValueError, match=f"{keyword}: one collection per"):
        word_counter(_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER, **{keyword: (frozenset(),)})


def _reference(
    common: frozenset[bytes], parts: frozenset[bytes], upper: frozenset[bytes]
) -> words.WordCounts:
    return functools.partial(reference_word_counts, common, parts, upper)


@functools.cache
def _shipped_split(held_as: str) -> tuple[frozenset[bytes], ...]:
    """Per vocabulary, the common words it splits after an underscore
    (``"snake_parts_held"``) or written bare (``"bare_words_held"``), as the features
    read them."""
    return tuple(map(frozenset, _words_split(_raw_tables(), held_as)))


@functools.cache
def _raw_tables() -> dict[str, Any]:
    """The shipped ``data/feature_tables.json``, read once."""
    path = resources.files("ctxbudget.tokens").joinpath("data/feature_tables.json")
    tables: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return tables


@functools.cache
def _shipped_sets() -> tuple[frozenset[bytes], frozenset[bytes], frozenset[bytes]]:
    """The common-word table, its camelCase spellings and the upper-case tokens, as the
    features build them."""
    tables = _raw_tables()
    common_words = tables["common_words"]
    return (
        frozenset(w.encode() for w in common_words),
        _camel_spellings(common_words),
        frozenset(w.encode() for w in tables["upper_case_tokens"]),
    )


def test_the_upper_case_tokens_are_capitals_and_no_common_word() -> None:
    """A word is looked up in one table of the two: the upper-case tokens are words of
    two or more capitals that the common-word table does not hold."""
    common, _, upper = _shipped_sets()
    assert upper, "the table is shipped"
    assert all(len(w) > 1 and w.isalpha() and w.isupper() for w in upper)
    assert not upper & common


def test_without_the_extension_the_definition_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the package was installed without its C extension, ``word_counter`` gives
    the definition itself (the warning is the neighbour counts' own, given once)."""
    monkeypatch.setattr(words, "compiled_extension", lambda warn=True: None)
    counts = word_counter(_SMALL_WORDS, _SMALL_PARTS, _SMALL_UPPER)
    assert isinstance(counts, functools.partial)
    assert counts(b"the fooBar MAJOR x", True) == (
        4,
        1,
        6,
        4,
        0,
        0,
        0,
        0,
        1,
        1,
        0,
        *(0,) * 8,
        2,
        0,
        0,
        0,
    )


def test_the_compiled_words_refuse_what_they_cannot_read() -> None:
    """Tables of anything but bytes, flag tables of the wrong size and text that is not
    bytes are refused with what was expected, not read as garbage."""
    words_type = type(getattr(_compiled(_SMALL_WORDS, _SMALL_PARTS), "__self__", None))
    flags = bytes(256)
    with pytest.raises(TypeError, match="collections of bytes"):
        words_type(["the"], [], [], flags, flags, 4, 16, 12, 3)
    with pytest.raises(TypeError, match="collections of bytes"):
        words_type([], [], ["MAJOR"], flags, flags, 4, 16, 12, 3)
    with pytest.raises(ValueError, match="256 bytes"):
        words_type([], [], [], b"short", flags, 4, 16, 12, 3)
    with pytest.raises(ValueError, match="a cover of 1 or more"):
        words_type([], [], [], flags, flags, 4, 16, 12, 0)
    with pytest.raises(ValueError, match="snake_split: a tuple of one collection of bytes"):
        words_type([], [], [], flags, flags, 4, 16, 12, 3, ([b"x"],))
    with pytest.raises(ValueError, match="bare_split: a tuple of one collection of bytes"):
        words_type([], [], [], flags, flags, 4, 16, 12, 3, (), ([b"x"],))
    with pytest.raises(TypeError, match="collections of bytes"):
        words_type([], [], [], flags, flags, 4, 16, 12, 3, (), (["x"], [], [], []))
    counts = words_type([], [], [], flags, flags, 4, 16, 12, 3).counts
    with pytest.raises(TypeError, match="spelled: bytes"):
        counts("text", True)
    assert counts(b"", False) == (0,) * len(WORD_COUNT_NAMES)
