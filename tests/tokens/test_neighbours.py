"""The neighbour counts: the C extension computes exactly the pure-Python definition.

``ctxbudget.tokens.neighbours.reference_counts`` defines the counts; the extension built
from ``_neighbours.c`` is what the features call where it is installed, and must agree
with it on every input, or a profile's count would depend on how the package was built.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import neighbours
from ctxbudget.tokens.features import text_features
from ctxbudget.tokens.neighbours import NEIGHBOUR_NAMES, PIECE, reference_counts

# Bytes as the features pass them: ASCII, and the lead bytes of UTF-8 (C2-F4); every
# class of FLAG_TABLE, MORE_FLAG_TABLE and LEAD_FLAG_TABLE, in runs and alone.
_CLASS_BYTES = bytes(range(0x80)) + bytes(range(0xC0, 0x100))
_RUNS = st.builds(
    lambda unit, times: unit * times,
    st.binary(min_size=1, max_size=3).map(lambda b: bytes(_CLASS_BYTES[x % 192] for x in b)),
    st.integers(1, 8),
)
_DATA = st.lists(
    st.one_of(
        st.sampled_from(_CLASS_BYTES).map(lambda b: bytes((b,))),
        st.sampled_from(
            [b" ", b"\n", b"\r\n", b"\t", b"'", b'"', b"_", b".", b"-", b"a", b"A", b"b"]
        ),
        _RUNS,
    ),
    max_size=60,
).map(b"".join)


def _one_byte_per_character(text: str) -> bytes:
    full = text.encode("utf-8", "surrogatepass")
    return full.translate(None, bytes(range(0x80, 0xC0)))


def _the_compiled_counts() -> neighbours.Counts:
    if neighbours.compiled_counts is None:
        pytest.fail(
            "the C extension ctxbudget.tokens._neighbours is not built: install with a C "
            "compiler present (make test does), or the features run at a fraction of "
            "their speed"
        )
    return neighbours.compiled_counts


def test_the_features_use_the_compiled_counts_where_built() -> None:
    """In the test environment the extension is built, and it is what the features use."""
    assert neighbours.neighbour_counts is _the_compiled_counts()


@settings(max_examples=600)
@given(_DATA, st.booleans())
def test_compiled_counts_equal_the_definition_on_any_bytes(data: bytes, line_start: bool) -> None:
    """Every count, on bytes of every class in runs and alone, as the Python definition."""
    compiled = _the_compiled_counts()
    assert compiled(data, line_start) == reference_counts(data, line_start)


@settings(max_examples=300)
@given(st.text(max_size=200), st.booleans())
def test_compiled_counts_equal_the_definition_on_any_text(text: str, line_start: bool) -> None:
    """Arbitrary Unicode, as the features hand it over (one byte per character)."""
    data = _one_byte_per_character(text)
    assert _the_compiled_counts()(data, line_start) == reference_counts(data, line_start)


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (b"aBc", "lower_before_upper", 1),
        (b"ABc", "upper_pairs_before_lower", 1),
        (b"Bc", "upper_pairs_before_lower", 0),
        (b"-+-", "punctuation_changes", 2),
        (b"----", "punctuation_changes", 0),
        (b"!!!!", "short_merging_triples", 2),
        (b"----", "short_merging_triples", 0),
        (b"file.py a._b _x", "word_joiners", 1),
        (b"a-b A-b a-B -a a- x--y \xc3-a", "hyphen_joiners", 2),
        (b"a   b", "space_triples", 1),
        (b"x\ny\n \n\n", "text_line_starts", 2),
        (b" \t\t\n\r", "whitespace_changes", 2),
        (b'"\'""', "mixed_quote_pairs", 2),
        (b"\xd0\xd0\xe4\xe4\xe0\xe1", "three_byte_script_lead_pairs", 1),
        (b"ab\ncd)\n \n9\n", "word_before_newline", 2),
        (b"'/'/'/ --- +-+-", "quote_alternations", 3),  # not without a quote
        (b'x",",', "quote_alternations", 1),  # after b and 9, not ) or a space
        # After a Cyrillic letter's or a Han character's lead byte, not after that of
        # CJK punctuation and kana (E3) or Armenian (D5), whose full stops share theirs.
        (b"\xd0\n\xe3\n\xe4\n\xd5\n", "word_before_newline", 2),
    ],
)
def test_each_count_means_what_its_name_says(data: bytes, name: str, expected: int) -> None:
    """A worked example per count, on both implementations."""
    index = NEIGHBOUR_NAMES.index(name)
    assert reference_counts(data, True)[index] == expected
    assert _the_compiled_counts()(data, True)[index] == expected


def test_the_first_byte_starts_a_line_only_when_told() -> None:
    """A piece cut inside a line does not start one."""
    index = NEIGHBOUR_NAMES.index("text_line_starts")
    for counts in (reference_counts, _the_compiled_counts()):
        assert counts(b"ab\ncd", True)[index] == 2
        assert counts(b"ab\ncd", False)[index] == 1


def test_a_whole_piece_of_every_class_agrees() -> None:
    """The longest piece the features pass, cycling through every byte class."""
    data = (_CLASS_BYTES * (PIECE // len(_CLASS_BYTES) + 1))[:PIECE]
    assert _the_compiled_counts()(data, True) == reference_counts(data, True)


def test_the_features_are_the_same_with_either_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts of code, prose, scripts and control characters get the same features from
    the pure-Python counts as from the extension (the fallback of an install without a
    C compiler)."""
    from ctxbudget.tokens import features

    texts = [
        "def f(x):\r\n    return x[\"a\"] + 'b'  # ok?\n\n\tpass\n",
        "Привет, мир! 你好，世界。 こんにちは 안녕 ภาษาไทย हिन्दी \u200b\x00\x7f",
        "camelCaseWord HTTPServer file_name.py  ----  !!!!\n" * 50,
    ]
    compiled = [text_features(t) for t in texts]
    monkeypatch.setattr(features, "neighbour_counts", reference_counts)
    assert [text_features(t) for t in texts] == compiled


def test_the_extension_refuses_tables_of_the_wrong_size() -> None:
    """A bad table is a clear TypeError, not a read past its end."""
    compiled = _the_compiled_counts()
    extension = type(compiled.__self__)  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="256 bytes"):
        extension(b"short", neighbours.MORE_FLAG_TABLE, neighbours.LEAD_FLAG_TABLE)
    with pytest.raises(TypeError, match="data: bytes"):
        compiled("text", True)  # type: ignore[arg-type]


# -- unmerged pairs: the floor of a count from a vocabulary's two-character tokens ----------

_TOKENS = st.lists(
    st.text(st.characters(max_codepoint=0x7F), min_size=2, max_size=2), max_size=300
).map("".join)


_TOKEN_BYTES = st.lists(st.binary(min_size=1, max_size=6), max_size=200)
_UTF8_OR_NOT = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.text(st.characters(max_codepoint=0x7FF), max_size=200).map(str.encode),
)


@settings(max_examples=300)
@given(st.lists(st.tuples(_TOKENS, _TOKEN_BYTES), min_size=1, max_size=4), _UTF8_OR_NOT)
def test_compiled_unmerged_pairs_equal_the_definition(
    vocabularies: list[tuple[str, list[bytes]]], data: bytes
) -> None:
    """Per vocabulary, the pairs its bit marks, as ``reference_unmerged_pairs`` counts:
    on any bytes, with tables of ASCII pair tokens and of pairs joined by any tokens."""
    table = neighbours.unmerged_pair_table(
        [pairs for pairs, _ in vocabularies],
        [neighbours.joined_pair_bitmap(tokens) for _, tokens in vocabularies],
    )
    compiled = neighbours.unmerged_pairs_counter(table, len(vocabularies))
    expected = neighbours.reference_unmerged_pairs(table, len(vocabularies), data)
    assert compiled(data) == expected


def test_the_unmerged_pairs_are_compiled_where_built() -> None:
    """In the test environment the extension counts the pairs too."""
    counter = neighbours.unmerged_pairs_counter(neighbours.unmerged_pair_table(["ab"]), 1)
    assert type(getattr(counter, "__self__", None)).__name__ == "UnmergedPairs"


def test_a_pair_is_unmerged_only_where_it_is_no_token_and_no_cascade() -> None:
    """ASCII pairs outside the vocabulary's tokens count; contractions, camelCase and
    anything beyond ASCII do not."""
    table = neighbours.unmerged_pair_table(["abb "])  # one vocabulary: "ab" and "b "
    count = neighbours.unmerged_pairs_counter(table, 1)
    assert count(b"ab") == (0,)
    assert count(b"ba") == (1,)
    assert count(b"ab c") == (1,)  # "b " is a token, " c" is not
    assert count(b"I've") == (1,)  # "I'" and "'v" left out, "ve" counted
    assert count(b"xY") == (0,)  # lower-case then a capital: camelCase tokens exist
    assert count(b"Yx") == (1,)
    assert count("é\xe9".encode()) == (0,)


def test_a_capital_after_lower_case_is_a_boundary_where_the_pre_tokenizer_cuts_there() -> None:
    """A vocabulary flagged ``splits_camel_case`` (o200k's pre-tokenizer cuts before a
    capital after a lower-case letter) counts every such pair, even one of its
    two-character tokens; the others leave them out; one flag a vocabulary or none."""
    tokens = "xYYx"  # two-character tokens "xY" and "Yx"
    table = neighbours.unmerged_pair_table([tokens, tokens], splits_camel_case=[True, False])
    count = neighbours.unmerged_pairs_counter(table, 2)
    assert count(b"xY") == (1, 0)
    assert count(b"xYxYx") == (2, 0)
    assert count(b"Yx") == (0, 0)  # a capital then lower case: the two-character rule
    assert count(b"Ya") == (1, 1)
    with pytest.raises(ValueError, match="one flag a vocabulary"):
        neighbours.unmerged_pair_table(["ab", "ab"], splits_camel_case=[True])


def test_a_pair_beyond_ascii_is_a_boundary_where_no_token_spans_it() -> None:
    """Beyond ASCII, a pair of bytes no token holds is a boundary: within a character
    (one spent on two tokens) or between two; where a character ends, its lead byte
    with the next byte is read too, and a position counts once if both are boundaries."""
    one_vocabulary = ["", "\t\t"]  # no ASCII pair tokens; "\t\t" is one
    only_o = neighbours.joined_pair_bitmap(["ó".encode()])
    table = neighbours.unmerged_pair_table(one_vocabulary, [only_o, only_o])
    count = neighbours.unmerged_pairs_counter(table, 2)
    assert count("ó".encode()) == (0, 0)
    # b3|09 and the lead c3|09 both unjoined: one boundary; 09|c3 another.
    assert count("ó\tó".encode()) == (2, 2)
    assert count(b"\t\t") == (1, 0)  # ASCII pairs: the two-character rule
    assert count("ö".encode()) == (1, 1)  # c3|b6: no token holds it


def test_a_token_joins_its_own_pairs_and_a_cut_character_joins_every_lead() -> None:
    """``joined_pair_bitmap``: the bytes of each token joined pairwise; where a token
    starts inside a character, the character's lead byte is unseen, and its end joins
    the next byte after any lead byte."""

    def joined(bitmap: bytes, first: int, second: int) -> bool:
        key = first | second << 8
        return bool(bitmap[key >> 3] >> (key & 7) & 1)

    whole = neighbours.joined_pair_bitmap(["é!".encode()])
    assert joined(whole, 0xC3, 0xA9)
    assert joined(whole, 0xA9, ord("!"))
    assert joined(whole, 0xC3, ord("!"))  # the lead byte of "é" before "!"
    assert not joined(whole, 0xC4, ord("!"))
    cut = neighbours.joined_pair_bitmap([b"\xa9!"])
    assert all(joined(cut, lead, ord("!")) for lead in range(0xC0, 0x100))
    with pytest.raises(ValueError, match="8192 bytes"):
        neighbours.unmerged_pair_table(["ab"], [b"short"])


def test_more_than_eight_vocabularies_are_refused() -> None:
    """A table has one bit per vocabulary in a byte."""
    with pytest.raises(ValueError, match="at most 8"):
        neighbours.unmerged_pair_table(["ab"] * 9)
    compiled = type(neighbours.unmerged_pairs_counter(bytes(1 << 16), 1).__self__)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="65536 bytes"):
        compiled(b"short", 1)


@given(st.binary(max_size=100))
def test_pairs_read_the_same_on_either_byte_order(data: bytes) -> None:
    """The pure-Python pairs are the same whether the machine reads 16-bit numbers
    little- or big-endian (the cast is only taken on a little-endian one)."""
    little = sorted(neighbours._pair_indexes(data, "little"))
    assert little == sorted(neighbours._pair_indexes(data, "big"))
    assert len(little) == max(0, len(data) - 1)


def test_an_install_without_the_extension_is_told_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the C extension the counts fall back to their definition, with a warning
    that says so and what to do, not silently slower."""
    monkeypatch.setitem(sys.modules, "ctxbudget.tokens._neighbours", None)
    monkeypatch.delattr("ctxbudget.tokens._neighbours")
    with pytest.warns(RuntimeWarning, match="without its C extension.*Reinstall"):
        assert neighbours._compiled() is None
    with pytest.warns(RuntimeWarning, match="without its C extension"):
        counter = neighbours.unmerged_pairs_counter(neighbours.unmerged_pair_table(["ab"]), 1)
    assert counter(b"ba") == (1,)


@given(st.binary(max_size=300), st.binary(min_size=256, max_size=256), st.integers(0, 255))
def test_compiled_class_counts_equal_the_definition(
    data: bytes, table: bytes, classes: int
) -> None:
    """``class_counts`` counts each class of a byte table in one pass as its definition
    (a translation, then a count per class) does, for any bytes, table and classes."""
    assert neighbours.class_counts is not neighbours.reference_class_counts  # compiled
    expected = neighbours.reference_class_counts(data, table, classes)
    assert neighbours.class_counts(data, table, classes) == expected


def test_class_counts_refuse_a_table_of_the_wrong_size() -> None:
    """A table is one class per byte value: 256 bytes, or a clear error."""
    with pytest.raises(ValueError, match="table of 256 classes"):
        neighbours.class_counts(b"abc", b"short", 1)


@given(
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.integers(0x800, 0xF000),
    st.binary(max_size=4000).map(lambda table: table[: len(table) // 2 * 2]),
    st.integers(0, 12),
)
def test_compiled_range_class_counts_equal_the_definition(
    data: bytes, first: int, table: bytes, bits: int
) -> None:
    """``range_class_counts`` counts the characters of each bit of a table of code
    points in one pass over UTF-8 as its definition (decoded, counted per character)
    does, for any text, table and bits."""
    assert neighbours.range_class_counts is not neighbours.reference_range_class_counts
    expected = neighbours.reference_range_class_counts(data, first, table, bits)
    assert neighbours.range_class_counts(data, first, table, bits) == expected


def test_range_class_counts_count_the_ideographs_of_each_class() -> None:
    """Worked example: a table of U+4E00-U+4E02 with masks 1, 2 and 3 counts "一" (1),
    "丁" (2) and "丂" (3) in a text with letters, kana and an emoji around them; a table
    of the wrong shape is a clear error."""
    table = bytes([1, 0, 2, 0, 3, 0])  # 16-bit little-endian masks
    text = "a一一丁かb丂😀".encode()
    assert neighbours.range_class_counts(text, 0x4E00, table, 2) == (3, 2)
    assert neighbours.reference_range_class_counts(text, 0x4E00, table, 2) == (3, 2)
    with pytest.raises(ValueError, match="16-bit masks"):
        neighbours.range_class_counts(text, 0x4E00, b"odd", 2)


_WHITE_SPACES = (
    " \t\n\r\x0b\x0c\x85\xa0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@given(
    st.text(
        st.one_of(
            st.sampled_from(_WHITE_SPACES),
            st.characters(),
            # Characters that share a lead byte with a space beyond ASCII, and surrogates.
            st.sampled_from("\u00a1\u00bf\u1681\u2010\u2030\u2060\u3001\ufefe\ud800"),
        ),
        max_size=120,
    ).map(lambda text: text.encode("utf-8", "surrogatepass"))
)
def test_compiled_unicode_space_changes_equal_the_definition(data: bytes) -> None:
    """``unicode_space_changes`` finds the same changes of white space in one pass over the
    bytes as its definition does over the decoded text, for any text (the spaces beyond
    ASCII, the characters that share their lead bytes, surrogates)."""
    assert neighbours.unicode_space_changes is not neighbours.reference_unicode_space_changes
    expected = neighbours.reference_unicode_space_changes(data)
    assert neighbours.unicode_space_changes(data) == expected


@pytest.mark.parametrize(
    ("text", "changes"),
    [
        ("\xa0\xa0\n\n\n \xa0\xa0\n\n\n ", 3),  # NBSP-LF twice, space-NBSP once
        (" \u3000\n\xa0 ", 4),  # every pair differs, each with a space beyond ASCII
        ("\xa0\xa0\xa0", 0),  # a run of one kind
        ("word\xa0word", 0),  # a no-break space between letters
        ("\n  \t\n", 0),  # ASCII white space alone: whitespace_changes counts it
        ("\u3000\u3000文本\u2002\u2003", 1),  # two typographic spaces of other widths
    ],
)
def test_unicode_space_changes_are_where_white_space_changes_kind(text: str, changes: int) -> None:
    """A change is two white-space characters in a row that differ, one beyond ASCII."""
    data = text.encode()
    assert neighbours.unicode_space_changes(data) == changes
    assert neighbours.reference_unicode_space_changes(data) == changes
