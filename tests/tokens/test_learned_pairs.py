"""Adjacent characters no token of a vocabulary holds (``ctxbudget.tokens.learned_pairs``):
the C pass counts what the Python definition counts, on any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens.learned_pairs import (
    HAN_IDEOGRAPHS,
    HANGUL_SYLLABLES,
    KANA_AND_FORMS,
    SCRIPTS_BEYOND_TWO_BYTES,
    TWO_BYTE,
    LearnedPairTable,
    learned_pair_table,
    reference_unlearned_pairs,
    unlearned_pairs_counter,
)
from ctxbudget.tokens.neighbours import compiled_extension

# Vocabulary 0 learned 中华 and 人民, 1 床前 and 明月; of the kana, 0 learned ます; of the
# two-byte characters, both learned ни.
TABLE = learned_pair_table(
    [
        (HAN_IDEOGRAPHS, ["中华人民", "床前明月"]),
        (KANA_AND_FORMS, ["ます", ""]),
        (TWO_BYTE, ["ни", "ни"]),
    ]
)
NOTHING = (0,) * 4  # the counts of a set with no pair
HAN_CHARACTERS = st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40)
KANA_CHARACTERS = st.characters(min_codepoint=0x30A0, max_codepoint=0x30C0)
CYRILLIC = st.characters(min_codepoint=0x430, max_codepoint=0x44F)
HANGUL = st.characters(min_codepoint=0xAC00, max_codepoint=0xAC20)
TEXT = st.text(
    st.one_of(
        HAN_CHARACTERS,
        KANA_CHARACTERS,
        CYRILLIC,
        HANGUL,
        st.sampled_from("中华人民床前明月光 a。\u4dff\ua000ｱ︵ますниé\u07ff\u0800"),
        st.characters(),
    ),
    max_size=80,
)


def both(table: LearnedPairTable, text: str) -> set[tuple[int, ...]]:
    """The definition's counts and the counter's (the C pass where it is built)."""
    data = text.encode("utf-8", "surrogatepass")
    return {reference_unlearned_pairs(table, data), unlearned_pairs_counter(table)(data)}


def test_a_pair_counts_for_each_vocabulary_that_did_not_learn_it() -> None:
    """Of 中华, 华人, 床前 and 明月, vocabulary 0 learned 中华 and vocabulary 1 床前 and
    明月; a character that is not a main-block ideograph (。, a letter) ends a run. 华
    stands between 中华 and 华人, both of which vocabulary 1 did not learn: a lone
    character of vocabulary 1. (Per set: the unlearned pairs of each vocabulary, then
    its lone characters; the kana set comes second, the two-byte characters third.)"""
    assert both(TABLE, "中华人。床前a明月") == {(3, 2, 0, 1) + NOTHING * 2}


def test_ideographs_outside_the_main_block_are_not_paired() -> None:
    """U+4DFF and U+A000 border the block: no pair is made with them."""
    assert both(TABLE, "\u4dff中\ua000华\u4dff") == {NOTHING * 3}


def test_kana_and_forms_pair_among_themselves_and_not_with_ideographs() -> None:
    """ます (written three times) is learned by vocabulary 0 alone; すか, すｱ and ｱ︵ by
    none: six pairs. 漢 (an ideograph, of the other set), a Hangul syllable and ♪ (of no
    set) end a run: か漢, 漢ま, す한 and ♪ま are no pairs. Lone
    characters: ｱ for both vocabularies (between すｱ and ｱ︵), and the す of ますか and
    of ますｱ for vocabulary 1, which did not learn ます."""
    assert both(TABLE, "ますか漢ます한♪ますｱ︵") == {(*NOTHING, 3, 6, 1, 3, *NOTHING)}


def test_two_byte_characters_pair_among_themselves() -> None:
    """ни is learned, ин and нн are not; é is a two-byte character too, U+0800 (three
    bytes) and a space end a run: in "нин éн\u0800н" the pairs are ни, ин and éн, two of
    them unlearned, and и stands between ни and ин, learned on one side."""
    assert both(TABLE, "нин éн\u0800н") == {NOTHING * 2 + (2, 2, 0, 0)}


@settings(max_examples=300)
@given(
    TEXT,
    st.lists(
        st.text(
            st.one_of(HAN_CHARACTERS, KANA_CHARACTERS, CYRILLIC, HANGUL), min_size=2, max_size=8
        ),
        max_size=4,
    ),
)
def test_the_c_pass_counts_what_the_definition_counts(text: str, words: list[str]) -> None:
    """Any text (surrogates included), any learned pairs of up to four vocabularies in
    each of five sets (the most a table holds)."""
    if compiled_extension(warn=False) is None:
        pytest.fail("the C extension is not built: install with a C compiler (make test does)")

    def learned(ranges: tuple[tuple[int, int], ...]) -> list[str]:
        member = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]{2}")
        return [
            "".join(p for i in range(len(w) - 1) if member.fullmatch(p := w[i : i + 2]))
            for w in words
        ]

    table = learned_pair_table(
        [
            (HAN_IDEOGRAPHS, learned(HAN_IDEOGRAPHS)),
            (KANA_AND_FORMS, learned(KANA_AND_FORMS)),
            (TWO_BYTE, learned(TWO_BYTE)),
            (SCRIPTS_BEYOND_TWO_BYTES, learned(SCRIPTS_BEYOND_TWO_BYTES)),
            (HANGUL_SYLLABLES, learned(HANGUL_SYLLABLES)),
        ]
    )
    assert len(both(table, text)) == 1


def test_hangul_syllables_pair_among_themselves() -> None:
    """Vocabulary 0 learned 니다 (as cl100k did, of the words of software), vocabulary 1
    none: in "합니다 가나" the pairs are 합니, 니다 and 가나, and a space ends a run; 니
    stands between two pairs vocabulary 1 did not learn."""
    table = learned_pair_table([(HAN_IDEOGRAPHS, ["", ""]), (HANGUL_SYLLABLES, ["니다", ""])])
    assert both(table, "합니다 가나") == {(0, 0, 0, 0, 2, 3, 0, 1)}  # two vocabularies


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        ([(HAN_IDEOGRAPHS, ["中华人"])], "not two characters each"),
        ([(HAN_IDEOGRAPHS, ["中a"])], re.escape("not a pair of U+4E00-U+9FFF")),
        ([(HAN_IDEOGRAPHS, ["中华"] * 9)], "the same vocabularies, at most 8"),
        ([(HAN_IDEOGRAPHS, ["中华"]), (KANA_AND_FORMS, ["", ""])], "the same vocabularies"),
        ([(HAN_IDEOGRAPHS, [""]), (HAN_IDEOGRAPHS, [""])], "in two sets"),
        ([(((0x41, 0x5A),), [""])], "not a range of two- or three-byte characters"),
        ([(((0xD000, 0xE000),), [""])], "not a range of two- or three-byte characters"),
        ([], "1 to 5 sets"),
    ],
)
def test_a_table_of_anything_but_pairs_of_its_characters_is_refused(
    sets: list[tuple[tuple[tuple[int, int], ...], list[str]]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        learned_pair_table(sets)


def test_a_table_whose_parts_disagree_is_refused() -> None:
    """Keys and masks of different lengths, or a map of code points to sets it lacks."""
    with pytest.raises(ValueError, match="a key of 4 bytes a mask"):
        LearnedPairTable(TABLE.keys + b"\0", TABLE.masks, 2, TABLE.members, 2)
    with pytest.raises(ValueError, match="members names a set"):
        LearnedPairTable(TABLE.keys, TABLE.masks, 2, TABLE.members, 1)
    with pytest.raises(ValueError, match="members names a set"):
        LearnedPairTable(TABLE.keys, TABLE.masks, 2, TABLE.members[:-1], 2)


def test_without_the_extension_the_definition_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A package built without its C extension counts by the definition, the same
    counts."""
    import ctxbudget.tokens.learned_pairs as learned_pairs

    monkeypatch.setattr(learned_pairs, "compiled_extension", lambda warn: None)
    counter = unlearned_pairs_counter(TABLE)
    assert counter("中华人。床前a明月 нин".encode()) == (3, 2, 0, 1, *NOTHING, 1, 1, 0, 0)
