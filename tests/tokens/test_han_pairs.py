"""Adjacent ideographs no token of a vocabulary holds (``ctxbudget.tokens.han_pairs``):
the C pass counts what the Python definition counts, on any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens.han_pairs import (
    han_pair_table,
    reference_unlearned_han_pairs,
    unlearned_han_pairs_counter,
)
from ctxbudget.tokens.neighbours import compiled_extension

LEARNED = ["中华人民", "床前明月"]  # vocabulary 0 learned 中华 and 人民, 1 床前 and 明月
KEYS, MASKS = han_pair_table(LEARNED)
HAN = st.characters(min_codepoint=0x4E00, max_codepoint=0x4E40)
TEXT = st.text(
    st.one_of(HAN, st.sampled_from("中华人民床前明月光 a。\u4dff\ua000"), st.characters()),
    max_size=80,
)


def test_a_pair_counts_for_each_vocabulary_that_did_not_learn_it() -> None:
    """Of 中华, 华人, 床前 and 明月, vocabulary 0 learned 中华 and vocabulary 1 床前 and
    明月; a character that is not a main-block ideograph (。, a letter) ends a run."""
    text = "中华人。床前a明月"
    assert reference_unlearned_han_pairs(KEYS, MASKS, 2, text.encode()) == (3, 2)
    assert unlearned_han_pairs_counter(KEYS, MASKS, 2)(text.encode()) == (3, 2)


def test_ideographs_outside_the_main_block_are_not_paired() -> None:
    """U+4DFF and U+A000 border the block: no pair is made with them."""
    text = "\u4dff中\ua000华\u4dff"
    assert reference_unlearned_han_pairs(KEYS, MASKS, 2, text.encode()) == (0, 0)
    assert unlearned_han_pairs_counter(KEYS, MASKS, 2)(text.encode()) == (0, 0)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(st.text(HAN, min_size=2, max_size=8), max_size=4))
def test_the_c_pass_counts_what_the_definition_counts(text: str, words: list[str]) -> None:
    """Any text (surrogates included), any learned pairs of up to four vocabularies."""
    if compiled_extension(warn=False) is None:
        pytest.fail("the C extension is not built: install with a C compiler (make test does)")
    learned = ["".join(w[i : i + 2] for i in range(len(w) - 1)) for w in words]
    keys, masks = han_pair_table(learned)
    data = text.encode("utf-8", "surrogatepass")
    counter = unlearned_han_pairs_counter(keys, masks, len(learned))
    assert counter(data) == reference_unlearned_han_pairs(keys, masks, len(learned), data)


@pytest.mark.parametrize(
    ("learned", "message"),
    [
        (["中华人"], "not two ideographs each"),
        (["中a"], re.escape("not a pair of U+4E00-U+9FFF")),
        (["中华"] * 9, "at most 8 vocabularies"),
    ],
)
def test_a_table_of_anything_but_pairs_of_ideographs_is_refused(
    learned: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        han_pair_table(learned)


def test_keys_and_masks_of_different_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match="a key of 4 bytes a mask"):
        unlearned_han_pairs_counter(KEYS + b"\0", MASKS, 2)
