"""Adjacent CJK characters no token of a vocabulary holds (``ctxbudget.tokens.cjk_pairs``):
the C pass counts what the Python definition counts, on any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens.cjk_pairs import (
    HAN_IDEOGRAPHS,
    KANA_AND_FORMS,
    cjk_pair_table,
    members_bitmap,
    reference_unlearned_cjk_pairs,
    unlearned_cjk_pairs_counter,
)
from ctxbudget.tokens.neighbours import compiled_extension

LEARNED = ["中华人民", "床前明月"]  # vocabulary 0 learned 中华 and 人民, 1 床前 and 明月
KEYS, MASKS = cjk_pair_table(LEARNED, HAN_IDEOGRAPHS)
HAN = members_bitmap(HAN_IDEOGRAPHS)
KANA = members_bitmap(KANA_AND_FORMS)
HAN_CHARACTERS = st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40)
KANA_CHARACTERS = st.characters(min_codepoint=0x30A0, max_codepoint=0x30C0)
TEXT = st.text(
    st.one_of(
        HAN_CHARACTERS,
        KANA_CHARACTERS,
        st.sampled_from("中华人民床前明月光 a。\u4dff\ua000ｱ︵"),
        st.characters(),
    ),
    max_size=80,
)


def both(
    keys: bytes, masks: bytes, vocabularies: int, members: bytes, text: str
) -> set[tuple[int, ...]]:
    """The definition's counts and the counter's (the C pass where it is built)."""
    data = text.encode("utf-8", "surrogatepass")
    return {
        reference_unlearned_cjk_pairs(keys, masks, vocabularies, members, data),
        unlearned_cjk_pairs_counter(keys, masks, vocabularies, members)(data),
    }


def test_a_pair_counts_for_each_vocabulary_that_did_not_learn_it() -> None:
    """Of 中华, 华人, 床前 and 明月, vocabulary 0 learned 中华 and vocabulary 1 床前 and
    明月; a character that is not a main-block ideograph (。, a letter) ends a run. 华
    stands between 中华 and 华人, both of which vocabulary 1 did not learn: a lone
    character of vocabulary 1 (after the unlearned pairs, each vocabulary's lone
    characters)."""
    assert both(KEYS, MASKS, 2, HAN, "中华人。床前a明月") == {(3, 2, 0, 1)}


def test_ideographs_outside_the_main_block_are_not_paired() -> None:
    """U+4DFF and U+A000 border the block: no pair is made with them."""
    assert both(KEYS, MASKS, 2, HAN, "\u4dff中\ua000华\u4dff") == {(0, 0, 0, 0)}


def test_kana_and_forms_pair_among_themselves_and_not_with_ideographs() -> None:
    """In the kana table ます (written three times) is learned by vocabulary 0 alone;
    すか, すｱ and ｱ︵ by none: six pairs. 漢 (an ideograph), a Hangul syllable and 。 (CJK
    punctuation) end a run: か漢, 漢ま, す한 and 。ま are no pairs. Lone characters: ｱ
    for both vocabularies (between すｱ and ｱ︵), and the す of ますか and of ますｱ for
    vocabulary 1, which did not learn ます."""
    keys, masks = cjk_pair_table(["ます", ""], KANA_AND_FORMS)
    assert both(keys, masks, 2, KANA, "ますか漢ます한。ますｱ︵") == {(3, 6, 1, 3)}


@settings(max_examples=300, deadline=None)
@given(
    TEXT,
    st.lists(
        st.text(st.one_of(HAN_CHARACTERS, KANA_CHARACTERS), min_size=2, max_size=8), max_size=4
    ),
    st.sampled_from([HAN_IDEOGRAPHS, KANA_AND_FORMS]),
)
def test_the_c_pass_counts_what_the_definition_counts(
    text: str, words: list[str], ranges: tuple[tuple[int, int], ...]
) -> None:
    """Any text (surrogates included), any learned pairs of up to four vocabularies, either
    set of characters."""
    if compiled_extension(warn=False) is None:
        pytest.fail("the C extension is not built: install with a C compiler (make test does)")
    member = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]{2}")
    learned = [
        "".join(p for i in range(len(w) - 1) if member.fullmatch(p := w[i : i + 2])) for w in words
    ]
    keys, masks = cjk_pair_table(learned, ranges)
    assert len(both(keys, masks, len(learned), members_bitmap(ranges), text)) == 1


@pytest.mark.parametrize(
    ("learned", "message"),
    [
        (["中华人"], "not two characters each"),
        (["中a"], re.escape("not a pair of U+4E00-U+9FFF")),
        (["中华"] * 9, "at most 8 vocabularies"),
    ],
)
def test_a_table_of_anything_but_pairs_of_its_characters_is_refused(
    learned: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        cjk_pair_table(learned, HAN_IDEOGRAPHS)


def test_keys_and_masks_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="a key of 4 bytes a mask"):
        unlearned_cjk_pairs_counter(KEYS + b"\0", MASKS, 2, HAN)


def test_a_members_bitmap_of_the_wrong_size_or_range_is_refused() -> None:
    """The bitmap covers the Basic Multilingual Plane; its ranges are three-byte characters."""
    with pytest.raises(ValueError, match="bitmap of 8192 bytes"):
        unlearned_cjk_pairs_counter(KEYS, MASKS, 2, HAN[:-1])
    with pytest.raises(ValueError, match="not a range of three-byte characters"):
        members_bitmap(((0x41, 0x5A),))
    with pytest.raises(ValueError, match="not a range of three-byte characters"):
        members_bitmap(((0xD000, 0xE000),))
