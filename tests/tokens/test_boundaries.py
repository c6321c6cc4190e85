"""Forced token boundaries (``ctxbudget.tokens.boundaries``): the fewest cuts a split of
the text into a vocabulary's tokens must make, so a count no vocabulary goes below;
computed in C as in its Python definition; and lifting the pair floors of base64."""

from __future__ import annotations

import base64
import functools
import json
import string
import unicodedata
from importlib import resources

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import boundaries
from ctxbudget.tokens.features import FLOOR_VOCABULARIES, _forced_tables, _tables, pair_floors
from ctxbudget.tokens.neighbours import joined_pair_bitmap, unmerged_pair_table

from .test_guard import ANY_TEXT, assert_not_fooled, vocabularies


def _forced(
    *vocabularies: list[bytes], groups_digits: tuple[bool, ...] = ()
) -> boundaries.ForcedTables:
    """The forced-boundary tables of vocabularies given by their tokens (and whether
    each one's pre-tokenizer takes digits in threes)."""
    return boundaries.forced_boundary_tables(
        [joined_pair_bitmap(tokens) for tokens in vocabularies],
        [boundaries.joined_triple_bitmap(tokens) for tokens in vocabularies],
        [
            "".join(t.decode() for t in tokens if len(t) == 2 and t.isascii())
            for tokens in vocabularies
        ],
        [boundaries.whole_triple_bitmap(tokens) for tokens in vocabularies],
        [boundaries.opening_pair_bitmap(tokens) for tokens in vocabularies],
        groups_digits,
    )


def test_a_triple_no_token_holds_forces_one_cut_and_the_cut_meets_the_next_triple() -> None:
    """Every pair of a, b, c, d, e is some token's; no triple is: "abcde" needs a cut
    in "abc" and one in "cde", and the cut of the first (b|c) already meets "bcd"."""
    tables = _forced([b"ab", b"bc", b"cd", b"de"])
    count = boundaries.reference_forced_boundaries
    assert count(tables, 1, b"ab") == (1,)
    assert count(tables, 1, b"abc") == (2,)
    assert count(tables, 1, b"abcd") == (2,)  # "ab|cd"
    assert count(tables, 1, b"abcde") == (3,)  # "ab|cd|e"
    assert count(tables, 1, b"") == (0,)


def test_a_triple_a_token_holds_forces_nothing_and_a_pair_none_holds_is_a_cut() -> None:
    """ "abcd" is one token: none of its triples forces a cut; "ax" is no token's pair, so
    every split cuts it; vocabularies are counted apart, one bit each."""
    tables = _forced([b"abcd", b"x"], [b"ab", b"bc", b"cd", b"ax"])
    count = boundaries.reference_forced_boundaries
    assert count(tables, 2, b"abcd") == (1, 2)  # "ab|cd" in the second
    assert count(tables, 2, b"ax") == (2, 1)
    assert count(tables, 2, b"a b") == (3, 3)  # no token holds a space at all


def test_only_characters_of_the_alphabet_form_triples() -> None:
    """A triple with a byte outside ``TRIPLE_ALPHABET`` is never looked up (its pairs
    still are)."""
    tables = _forced([b"a ", b" b", b"ab"])
    assert boundaries.reference_forced_boundaries(tables, 1, b"a b") == (1,)
    assert boundaries.reference_forced_boundaries(tables, 1, b"aab") == (2,)


def test_triples_of_marks_cut_and_triples_mixing_words_with_other_marks_do_not() -> None:
    """Three marks no token holds are a cut, as three letters are, and so are letters
    with the marks of base64; a letter or digit next to another mark is taken as held
    (``joined_triple_bitmap``): ordinary code is full of those, and the floor only
    loses a cut it could have counted."""
    count = boundaries.reference_forced_boundaries
    assert count(_forced([b"(("]), 1, b"(((") == (2,)
    assert count(_forced([b"a+", b"+b"]), 1, b"a+b") == (2,)
    assert count(_forced([b"a.", b".b"]), 1, b"a.b") == (1,)
    assert count(_forced([b"a(", b"(("]), 1, b"a((") == (1,)


def test_a_cut_chains_rightwards_to_the_pairs_no_token_begins_with() -> None:
    """The one token holds the pairs 80 81 and 81 82. After a cut (or the text's start)
    the next token begins there, and none begins with 81 82: a cut. Before a cut the
    token ends there, and none ends with 80 81, but that chain is not followed (its time
    bought next to nothing). ASCII chains the same way: no token begins with "bc".
    Computed in C as in the definition."""
    tables = _forced([b"\x80\x81\x82", b"abc"])
    compiled = boundaries.pair_floor_counter(bytes(1 << 16), tables, 1)
    for data, least in (
        (b"\x80\x81\x82", 1),  # the token
        (b"\x81\x82", 2),  # its start is the text's: no token opens with 81 82
        (b"\x83\x81\x82", 3),  # 83 81 no token holds, and 81 82 none opens with
        (b"\x83\x81\x82\x81\x82", 5),  # and on: 82 81 none holds, 81 82 none opens with
        (b"\x80\x81", 1),  # the chain leftwards is not followed
        (b"\x80\x81\x82" * 3, 3),  # 82 80 no token holds: three whole tokens
        (b"bc", 2),
        (b"x bc", 4),  # "x " and " b" no token holds, and "bc" none opens with
        (b"abc", 1),
    ):
        assert boundaries.reference_forced_boundaries(tables, 1, data) == (least,), data
        assert compiled(data) == (least,), data


def test_a_pre_tokenizer_that_takes_digits_in_threes_cuts_after_every_third() -> None:
    """Every pair and triple of "1231231" is a token; a vocabulary whose pre-tokenizer
    takes digits one to three at a time still cuts it "123|123|1", one that does not
    need not. A run after a character beyond ASCII is not counted (it may be a digit
    too, "\u00b2" or "\u0663"). Computed in C as in the definition."""
    digit_tokens = [b"12", b"23", b"31", b"123", b"231", b"312", b"x", b"\xc3\xa9"]
    plain = _forced(digit_tokens, digit_tokens)
    grouped = boundaries.forced_boundary_tables(
        [joined_pair_bitmap(digit_tokens)] * 2,
        [boundaries.joined_triple_bitmap(digit_tokens)] * 2,
        ["122331"] * 2,
        [boundaries.whole_triple_bitmap(digit_tokens)] * 2,
        [boundaries.opening_pair_bitmap(digit_tokens)] * 2,
        groups_digits=[True, False],
    )
    compiled = boundaries.pair_floor_counter(bytes(1 << 16), grouped, 2)
    for data, least in (
        (b"1231231", (3, 1)),
        (b"x1231231", (4, 2)),  # "x1" no token holds
        (b"\xc3\xa91231231", (2, 2)),  # after "\u00e9": not counted
        (b"123 1231", (4, 3)),  # no token holds a space
    ):
        assert boundaries.reference_forced_boundaries(grouped, 2, data) == least, data
        assert compiled(data) == least, data
    assert boundaries.reference_forced_boundaries(plain, 2, b"1231231") == (1, 1)


@pytest.mark.parametrize(
    "text",
    [
        "G\U00084486\n" * 4,
        "\nz\U000522fd" * 27,
        "\nB\U000fd9f5" * 27,
        "\tM\u00b7\U000e7c7a" * 20,
        "Ux" + "\U00067ee1\u00b0 " * 26,
    ],
)
def test_characters_no_vocabulary_learned_once_counted_below_the_share_are_not(text: str) -> None:
    """Private-use characters and those of unassigned planes are four byte tokens to
    every vocabulary; some token of another character holds each pair of their bytes,
    so the pairs alone saw one or two cuts in them, and the profiles counted these at
    81-87 % of their own tokenizers' counts (the pass's chained cuts find all four)."""
    assert_not_fooled(text)


def test_tables_of_the_wrong_size_are_refused() -> None:
    """Bitmaps are checked, so that a table written for another alphabet is an error, not
    wrong floors."""
    with pytest.raises(ValueError, match="for each of at most 8 vocabularies"):
        boundaries.forced_boundary_tables([bytes(1 << 13)], [], [""], [], [])
    with pytest.raises(ValueError, match="triple bitmaps of"):
        boundaries.forced_boundary_tables(
            [bytes(1 << 13)], [b"short"], [""], [b"short"], [bytes(1 << 13)]
        )
    floors = type(_tables().pair_floors.__self__)  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="three pair tables of 65536 bytes"):
        floors(bytes(1 << 16), bytes(1 << 16), b"short", b"", b"", bytes(256), 1, b"", 0)


_TOKEN_BYTES = st.lists(
    st.one_of(
        st.binary(min_size=1, max_size=6),
        st.text(string.ascii_letters[:6] + "+=", min_size=1, max_size=6).map(str.encode),
        st.text("0123456789", min_size=1, max_size=3).map(str.encode),
    ),
    max_size=100,
)
_DATA = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.text(string.ascii_letters[:6] + "+= é", max_size=200).map(str.encode),
    st.text("0123456789ab +\u00e9\u00b2", max_size=200).map(str.encode),
)


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(st.text("ab+= ", max_size=12), _TOKEN_BYTES, st.booleans()),
        min_size=1,
        max_size=4,
    ),
    _DATA,
)
def test_compiled_pair_floors_equal_the_definition(
    vocabularies: list[tuple[str, list[bytes], bool]], data: bytes
) -> None:
    """The C pass gives ``reference_pair_floors`` on any bytes, for any tables: the
    larger of the unmerged pairs plus one and the forced boundaries, per vocabulary."""
    pair_tokens = [two[: len(two) // 2 * 2] for two, _, _ in vocabularies]  # whole pairs
    unmerged = unmerged_pair_table(pair_tokens, [joined_pair_bitmap(t) for _, t, _ in vocabularies])
    tables = _forced(
        *(tokens for _, tokens, _ in vocabularies),
        groups_digits=tuple(groups for _, _, groups in vocabularies),
    )
    compiled = boundaries.pair_floor_counter(unmerged, tables, len(vocabularies))
    assert type(getattr(compiled, "__self__", None)).__name__ == "PairFloors"
    expected = boundaries.reference_pair_floors(unmerged, tables, len(vocabularies), data)
    assert compiled(data) == expected


@settings(max_examples=60)  # the definition walks every run in Python
@given(_DATA, st.integers(0, 15))
def test_the_floors_asked_for_are_the_whole_floors_and_the_others_zero(
    data: bytes, wanted: int
) -> None:
    """A profile that keeps one vocabulary's floor asks for it alone (``wanted``, a mask):
    it gets that floor as the whole pass gives it, and 0 for the others, from the C pass
    and the definition alike."""
    floors = _tables().pair_floors
    every = floors(data)
    expected = tuple(f if wanted >> v & 1 else 0 for v, f in enumerate(every))
    assert floors(data, wanted) == expected
    text = data.decode("utf-8", "replace")
    assert pair_floors(text, wanted=wanted) == tuple(
        f if wanted >> v & 1 else 0 for v, f in enumerate(pair_floors(text))
    )
    forced = _shipped_forced_tables()
    reference = boundaries.reference_pair_floors(
        bytes(1 << 16), forced, len(FLOOR_VOCABULARIES), data, wanted
    )
    whole = boundaries.reference_pair_floors(bytes(1 << 16), forced, len(FLOOR_VOCABULARIES), data)
    assert reference == tuple(f if wanted >> v & 1 else 0 for v, f in enumerate(whole))


def _forced_of_shipped(text: str) -> dict[str, int]:
    """The forced boundaries of the shipped vocabularies, over the text as each
    tokenizer sees it (Qwen's puts it in normal form C first)."""
    forced = {}
    for v, name in enumerate(FLOOR_VOCABULARIES):
        seen = unicodedata.normalize("NFC", text) if name == "qwen3" else text
        forced[name] = _shipped_forced_boundaries()(seen.encode("utf-8", "surrogatepass"))[v]
    return forced


@functools.cache
def _shipped_forced_tables() -> boundaries.ForcedTables:
    path = resources.files("ctxbudget.tokens").joinpath("data/feature_tables.json")
    return _forced_tables(json.loads(path.read_text("utf-8")))


@functools.cache
def _shipped_forced_boundaries() -> boundaries.PairFloors:
    """The compiled pass over the shipped tables with no unmerged pair: the forced
    boundaries alone (the larger of 1 and them)."""
    forced = _shipped_forced_tables()
    return boundaries.pair_floor_counter(bytes(1 << 16), forced, len(FLOOR_VOCABULARIES))


_BASE64_WORDS = st.binary(min_size=1, max_size=200).map(lambda b: base64.b64encode(b).decode())


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(ANY_TEXT, _BASE64_WORDS, st.text(string.ascii_letters + string.digits, max_size=300))
)
def test_no_vocabulary_splits_a_text_into_fewer_tokens_than_its_forced_boundaries(
    text: str,
) -> None:
    """The forced boundaries hold on any text, not only on real text: a count no exact
    tokenizer goes below (the unmerged pairs' rule of thumb is not checked here)."""
    exact = vocabularies()
    for name, least in _forced_of_shipped(text).items():
        assert least <= exact[name](text), (name, least, text)


def test_the_forced_boundaries_of_random_base64_are_most_of_its_tokens() -> None:
    """A base64 word of random letters: 13 of cl100k's 14 tokens are forced (its
    triples force 12 cuts, its fewest pieces one more), where the unmerged pairs gave 8
    (its price was 11, below the share of the guard); a certificate's line of 64
    characters is forced to 37-39 of its 38-39 tokens."""
    word = "1FzfBUCUWIwyCQFlPqsB"
    assert _forced_of_shipped(word) == {"cl100k": 13, "o200k": 12, "deepseek_v4": 13, "qwen3": 13}
    assert pair_floors(word) == (13, 12, 13, 13)
    line = "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"
    assert pair_floors(line) == (39, 38, 37, 39)


def test_a_run_is_cut_into_its_fewest_pieces_of_whole_tokens() -> None:
    """Where a run's triples forced ``PIECES_AFTER`` cuts or more, its pieces count:
    inside it, a piece of two or three characters is a token or is no piece. With the
    tokens "abx", "xcd", "bc" and "da", every pair of "abcdabcdabcd" is held, and the
    triples force five cuts, "ab|cd|ab|cd|ab|cd"; but "ab" and "cd" are no tokens, so the
    fewest pieces are "a|bc|da|bc|da|bc|d": seven. Where the run may go on into a token
    beyond it (a pair some token holds before it), its first piece may be part of that
    token: after a space, which " ab" joins, " ab|c|da|bc|da|bc|d" is seven tokens too, and
    the floor says no more."""
    assert boundaries.PIECES_AFTER == 2
    count = boundaries.reference_forced_boundaries
    tables = _forced([b"abx", b"xcd", b"bc", b"da"])
    assert count(tables, 1, b"abcdabcdabcd") == (7,)
    assert count(tables, 1, b"abcd") == (2,)  # one cut: the pieces are not looked for
    assert count(tables, 1, b"abcdab") == (4,)  # two cuts, "ab|cd|ab"; pieces "a|bc|da|b"
    spaced = _forced([b"abx", b"xcd", b"bc", b"da", b" ab"])
    assert count(spaced, 1, b" abcdabcdabcd") == (7,)


@pytest.mark.parametrize(
    "text",
    [
        "1FzfBUCUWIwyCQFlPqsB",
        "uhVATSAaeQ==",
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ",
        "ArBYj3zK88wKmTtCykeDcYEPmZEupGp+ZQ==",
        "tNIPdTg=",
        "aqSfOg==",
    ],
)
def test_base64_once_counted_below_the_share_is_not(text: str) -> None:
    """Base64 words the guard and the profiles once priced at 64-85 % of an exact count
    (a certificate's line among them; "tNIPdTg=" 5 of o200k's 7 and "aqSfOg==" 4 of
    Qwen's 6 before the exact cuts chained: a cut before the capital of "Tg", where o200k
    cuts camel case, and no token begins with "Tg")."""
    assert_not_fooled(text)


def test_the_floors_of_a_tokenizer_that_composes_are_those_of_the_composed_text() -> None:
    """Qwen's tokenizer puts text in normal form C: a compatibility ideograph is the
    unified one to it, so its floor is that of the composed text, where the others'
    stay those of the bytes as written (the floor was above Qwen's count of 84 texts)."""
    written = "\uf900\uf901\uf902" * 20  # compatibility ideographs; NFC maps each to another
    composed = unicodedata.normalize("NFC", written)
    assert composed != written
    qwen = FLOOR_VOCABULARIES.index("qwen3")
    assert pair_floors(written)[qwen] == pair_floors(composed)[qwen]
    others = [v for v in range(len(FLOOR_VOCABULARIES)) if v != qwen]
    as_written = _tables().pair_floors(written.encode())
    assert [pair_floors(written)[v] for v in others] == [as_written[v] for v in others]


def test_without_the_extension_the_floors_are_their_definition(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An install with no C compiler gets the same floors from the Python definition."""
    tables = _forced([b"ab", b"bc", b"cd", b"de"])
    unmerged = unmerged_pair_table(["ab"])
    monkeypatch.setattr(boundaries, "compiled_extension", lambda warn=True: None)
    counter = boundaries.pair_floor_counter(unmerged, tables, 1)
    assert not hasattr(counter, "__self__")
    assert counter(b"abcde") == (4,)  # only "ab" is a pair token: 3 unmerged, 2 cuts
    assert counter(b"abcde") == boundaries.reference_pair_floors(unmerged, tables, 1, b"abcde")
    assert counter(b"") == (0,)
