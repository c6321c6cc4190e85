"""Words of Latin letters beyond ASCII that the vocabularies hold whole are priced by
what each vocabulary spends on them (``ctxbudget.tokens.accented``), and no text of
them fools the guard. Needs the ``dev`` extra for the vocabularies."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import CalibratedCounter
from ctxbudget.tokens.accented import (
    ACCENTED_COUNT_NAMES,
    ACCENTED_VOCABULARIES,
    LATIN_LETTERS,
    STAND_IN,
    AccentedWords,
)
from ctxbudget.tokens.features import FEATURE_NAMES, _tables, text_features
from tests.tokens.test_guard import assert_not_fooled, vocabularies

NONE = (0,) * len(ACCENTED_COUNT_NAMES)


def shipped() -> AccentedWords:
    return _tables().accented_words


def stand_in_by_definition(table: AccentedWords, text: str) -> tuple[str, tuple[int, ...]]:
    """What ``stand_in`` is meant to do, spelled as one regular expression: every whole
    run of Latin letters right after a space (no letter of any script and no combining
    mark after it) that the table holds."""
    word = re.compile(f"(?<= )[{LATIN_LETTERS}]+(?![^\\W\\d_]|[\u0300-\u036f])")
    kept, counts, end = [], [0] * len(ACCENTED_COUNT_NAMES), 0
    for match in word.finditer(text):
        costs = table.costs.get(match.group())
        if costs is None:
            continue
        for place, cost in enumerate(costs):
            counts[place] += cost - 1
        counts[-1] += max(costs) - 1
        kept += [text[end : match.start()], STAND_IN]
        end = match.end()
    if not kept:
        return text, NONE
    return "".join(kept) + text[end:], tuple(counts)


def test_every_word_of_the_table_costs_each_vocabulary_what_the_table_says() -> None:
    """The table is measured, not guessed: after a space, each word costs each of the
    four vocabularies what its digits say, and one of them holds it whole."""
    counts = vocabularies()
    for word, costs in shipped().costs.items():
        assert not word.isascii(), word
        assert re.fullmatch(f"[{LATIN_LETTERS}]+", word), word
        assert min(costs) == 1, (word, costs)
        measured = tuple(counts[vocabulary](" " + word) for vocabulary in ACCENTED_VOCABULARIES)
        assert measured == costs, (word, measured, costs)


def test_the_table_holds_the_words_large_vocabularies_keep_whole() -> None:
    """French, Portuguese, Spanish and Vietnamese words o200k spends one token on."""
    costs = shipped().costs
    for word in ("données", "não", "possível", "opção", "también", "của"):
        assert costs[word][ACCENTED_VOCABULARIES.index("o200k")] == 1, word


def test_a_word_of_the_table_after_a_space_stands_in_as_a_common_word() -> None:
    table = AccentedWords.from_table({"données": "2112", "não": "1111"})
    assert table.stand_in("les données, não.") == ("les the, the.", (1, 0, 0, 1, 1))


@pytest.mark.parametrize(
    "text",
    [
        "données est",  # the text's first word: bare, not after a space
        "x\ndonnées",  # after a line break
        "x _données",  # after a mark: "_å" is two tokens where " å" is one
        "x donnéesжи",  # the word goes on in another script
        "x données\u0301",  # a combining mark joins its last letter
        "x donnéesx",  # a longer word the table does not hold
        "x donnees",  # plain ASCII is never looked up
        "日本語のテキスト",  # no letter of the table at all
    ],
)
def test_words_not_whole_or_not_after_a_space_are_left_to_the_other_features(text: str) -> None:
    table = AccentedWords.from_table({"données": "2112", "donnees": "1111"})
    assert table.stand_in(text) == (text, NONE)


PIECES = st.one_of(
    st.sampled_from(sorted(shipped().costs)[:400]),
    st.sampled_from([" ", "  ", "\n", "_", ",", "3", "a", "é", "ж", "\u0301", "x y", "de "]),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=8),
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_stand_in_finds_exactly_the_words_of_its_definition(text: str) -> None:
    """The search that starts from letters beyond ASCII (fast where there are none)
    finds what the one regular expression of the definition finds."""
    assert shipped().stand_in(text) == stand_in_by_definition(shipped(), text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_the_features_of_a_text_are_those_of_its_stand_ins_and_the_extra_tokens(
    text: str,
) -> None:
    """Every other feature sees the stand-in in the word's place; the accented-word
    counts come last in ``FEATURE_NAMES``."""
    stood_in, extra = shipped().stand_in(text)
    assert FEATURE_NAMES[-len(ACCENTED_COUNT_NAMES) :] == ACCENTED_COUNT_NAMES
    assert text_features(text) == text_features(stood_in)[: -len(extra)] + extra


def _costliest(vocabulary: str, size: int = 600) -> str:
    """The table's words that ``vocabulary`` spends most on, after spaces."""
    place = ACCENTED_VOCABULARIES.index(vocabulary)
    ranked = sorted(shipped().costs.items(), key=lambda item: (-item[1][place], item[0]))
    return "".join(" " + word for word, _ in ranked[:size])


@pytest.mark.parametrize("vocabulary", ACCENTED_VOCABULARIES)
def test_the_words_a_vocabulary_splits_most_do_not_fool_the_guard(vocabulary: str) -> None:
    """A text of the words that cost a vocabulary most (up to nine tokens each) is still
    priced at its share by ``generic`` and by every tokenizer's profile."""
    assert_not_fooled(_costliest(vocabulary))


@pytest.mark.parametrize("around", ["\n{}", "{}\n", "\t{}", "-{}-"])
def test_what_surrounds_a_stood_in_word_is_priced_as_around_any_word(around: str) -> None:
    """The stand-in keeps the word's place: the line breaks between short words are not
    joined into one run, which would merge (``"\\n é" * 1000``)."""
    assert_not_fooled(around.format(" é") * 1000)
    assert_not_fooled(around.format(" não") * 1000)


def test_words_a_vocabulary_holds_are_counted_near_its_count() -> None:
    """Words o200k holds whole, between ASCII ones, as in Portuguese or French prose: its
    profile counts them within 5 %, where each accented letter priced at what it costs
    alone had put such prose 60-80 % over."""
    place = ACCENTED_VOCABULARIES.index("o200k")
    held = [word for word, costs in sorted(shipped().costs.items()) if costs[place] == 1]
    text = "".join(f" {word} de" for word in held[::20])
    exact = vocabularies()["o200k"](text)
    assert abs(CalibratedCounter("o200k").count(text) - exact) <= 0.05 * exact
