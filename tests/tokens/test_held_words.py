"""Words of Latin letters that the vocabularies hold whole after a space are priced by
what each vocabulary spends on them (``ctxbudget.tokens.held_words``), and no text of
them fools the guard. Needs the ``dev`` extra for the vocabularies."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import CalibratedCounter
from ctxbudget.tokens.features import FEATURE_NAMES, _tables, text_features
from ctxbudget.tokens.held_words import (
    HELD_COUNT_NAMES,
    HELD_VOCABULARIES,
    STAND_IN,
    WORD_LETTERS,
    HeldWords,
    reference_ascii_stand_in,
)
from ctxbudget.tokens.neighbours import compiled_extension
from tests.tokens.test_guard import assert_not_fooled, vocabularies

NONE = (0,) * len(HELD_COUNT_NAMES)


def shipped() -> HeldWords:
    return _tables().held_words


def stand_in(table: HeldWords, text: str) -> tuple[str, tuple[int, ...]]:
    """``HeldWords.stand_in`` without the bytes, which must be those of its text."""
    stood_in, data, counts = table.stand_in(text)
    assert data == stood_in.encode("utf-8", "surrogatepass")
    return stood_in, counts


def stand_in_by_definition(table: HeldWords, text: str) -> tuple[str, tuple[int, ...]]:
    """What ``stand_in`` is meant to do, spelled as regular expressions: every whole word
    after a space that the table holds, of ASCII letters followed by no letter and no
    character beyond ASCII, or with a letter beyond ASCII and followed by no letter of
    any script and no combining mark."""
    ascii_word = re.compile("(?<= )[A-Za-z]+(?![A-Za-z]|[^\\x00-\\x7f])")
    other_word = re.compile(f"(?<= )[{WORD_LETTERS}]+(?![^\\W\\d_]|[\u0300-\u036f])")
    found = list(ascii_word.finditer(text)) + [
        m for m in other_word.finditer(text) if not m.group().isascii()
    ]
    kept, counts, end = [], [0] * len(HELD_COUNT_NAMES), 0
    for match in sorted(found, key=lambda m: m.start()):
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
    four vocabularies what its digits say, and one of them holds it whole; no common
    word and no single ASCII letter is in it, which other features price."""
    counts = vocabularies()
    tables = _tables()
    for word, costs in shipped().costs.items():
        assert re.fullmatch(f"[{WORD_LETTERS}]+", word), word
        assert word.encode() not in tables.common_words, word
        assert len(word) > 1 or not word.isascii(), word
        assert min(costs) == 1, (word, costs)
        measured = tuple(counts[vocabulary](" " + word) for vocabulary in HELD_VOCABULARIES)
        assert measured == costs, (word, measured, costs)


def test_the_table_holds_the_words_large_vocabularies_keep_whole() -> None:
    """French, Portuguese, Spanish, Vietnamese and Python words o200k spends one token
    on that are no common words."""
    costs = shipped().costs
    for word in ("données", "não", "possível", "opção", "también", "của", "fichier", "getattr"):
        assert costs[word][HELD_VOCABULARIES.index("o200k")] == 1, word


def test_a_word_of_the_table_after_a_space_stands_in_as_a_common_word() -> None:
    table = HeldWords.from_table({"données": "2112", "não": "1111", "fichier": "2111"})
    assert stand_in(table, "les données, não. un fichier") == (
        "les the, the. un the",
        (2, 0, 0, 1, 2),
    )


def test_russian_and_greek_words_stand_in_as_latin_ones_do() -> None:
    """The table holds words of Russian's alphabet and of Greek after a space (cl100k
    spends four tokens on `` сегодня``, the others one): they stand in, and their costs
    count, as a French word's do; a cost of ten or more tokens is a digit of base 36."""
    table = HeldWords.from_table({"сегодня": "4111", "είναι": "4111", "Ανακτήθηκε": "b413"})
    assert stand_in(table, "мы сегодня, είναι. x Ανακτήθηκε") == (
        "мы the, the. x the",
        (3 + 3 + 10, 0 + 0 + 3, 0, 0 + 0 + 2, 3 + 3 + 10),
    )


def test_no_word_of_the_table_writes_a_cyrillic_letter_russian_does_not() -> None:
    """Which language a Cyrillic text is in, and so the price of its letters, is read
    from the letters Russian does not write (``ї``, ``ј``, ``ү``, ``қ``): a word that
    holds one stays for the letter features to see, where a Kazakh text whose Kazakh
    letters stood in would read as Mongolian."""
    russian = set("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")
    for word in shipped().costs:
        cyrillic = {c.lower() for c in word if "\u0400" <= c <= "\u04ff"}
        assert cyrillic <= russian, word


@pytest.mark.parametrize(
    "text",
    [
        "x сегодняү",  # goes on with a letter Russian does not write
        "x Зүүн",  # holds one
    ],
)
def test_cyrillic_words_beyond_russian_are_left_to_the_letter_features(text: str) -> None:
    table = HeldWords.from_table({"сегодня": "4111", "Зүүн": "2211"})
    assert stand_in(table, text) == (text, NONE)


@pytest.mark.parametrize(
    "text",
    [
        "données est",  # the text's first word: bare, not after a space
        "x\ndonnées",  # after a line break
        "x _données",  # after a mark: "_å" is two tokens where " å" is one
        "x donnéesжи",  # the word goes on in another script
        "x données\u0301",  # a combining mark joins its last letter
        "x donnéesx",  # a longer word the table does not hold
        "x fichieré",  # an ASCII word that goes on beyond ASCII
        "x fichiers",  # a longer ASCII word the table does not hold
        "日本語のテキスト",  # no letter of the table at all
    ],
)
def test_words_not_whole_or_not_after_a_space_are_left_to_the_other_features(text: str) -> None:
    table = HeldWords.from_table({"données": "2112", "fichier": "2111"})
    assert stand_in(table, text) == (text, NONE)


PIECES = st.one_of(
    st.sampled_from(sorted(shipped().costs)[::200]),
    st.sampled_from(
        [" ", "  ", "\n", "_", ",", "3", "a", "é", "ж", "ү", "σ", "\u0301", "x y", "de "]
    ),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF), max_size=8),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=4),
)
TEXTS = st.lists(PIECES, max_size=30).map("".join)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(TEXTS)
def test_the_stand_in_finds_exactly_the_words_of_its_definition(text: str) -> None:
    """The pass in C over the bytes (where the extension is built) and the search that
    starts from letters beyond ASCII find what the regular expressions of the
    definition find."""
    assert stand_in(shipped(), text) == stand_in_by_definition(shipped(), text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(TEXTS)
def test_the_compiled_pass_and_the_python_definition_agree(text: str) -> None:
    ascii_costs = {word: costs for word, costs in shipped().costs.items() if word.isascii()}
    data = text.encode("utf-8", "surrogatepass")
    stood_in, stood_in_data, counts = shipped().ascii_stand_in(text, data)
    assert (stood_in, counts) == reference_ascii_stand_in(ascii_costs, text)
    assert stood_in_data == stood_in.encode("utf-8", "surrogatepass")


def test_without_the_extension_the_definition_stands_in(monkeypatch: pytest.MonkeyPatch) -> None:
    """A package built without its C extension finds the same words by the definition."""
    import ctxbudget.tokens.held_words as held_words

    monkeypatch.setattr(held_words, "compiled_extension", lambda warn: None)
    table = HeldWords.from_table({"fichier": "2111", "données": "2112"})
    text = "un fichier, des données, fichiers"
    assert stand_in(table, text) == ("un the, des the, fichiers", (2, 0, 0, 1, 2))


def test_the_stand_in_is_in_one_pass_in_c_where_the_extension_is_built() -> None:
    """Where the package was built with its extension, the words of ASCII letters are
    found in C, which refuses what it cannot read."""
    extension = compiled_extension(warn=False)
    if extension is None:
        pytest.skip("built without the C extension")
    with pytest.raises(ValueError, match="4 costs"):
        extension.HeldWords((b"ab",), b"\x01", b"the")
    with pytest.raises(ValueError, match="ASCII letters"):
        extension.HeldWords((b"a1",), b"\x01\x01\x01\x01", b"the")
    with pytest.raises(ValueError, match="one token or more"):
        extension.HeldWords((b"ab",), b"\x00\x01\x01\x01", b"the")
    held = extension.HeldWords((b"ab",), b"\x02\x01\x01\x03", b"the")
    assert held.stand_in(b" ab ab, xab ab") == (b" the the, xab the", 3, 0, 0, 6, 6)
    assert held.stand_in(b"ab abc") == (None, 0, 0, 0, 0, 0)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(TEXTS)
def test_the_features_of_a_text_are_those_of_its_stand_ins_and_the_extra_tokens(
    text: str,
) -> None:
    """Every other feature sees the stand-in in the word's place; the held-word counts
    come last in ``FEATURE_NAMES``."""
    stood_in, extra = stand_in(shipped(), text)
    assert FEATURE_NAMES[-len(HELD_COUNT_NAMES) :] == HELD_COUNT_NAMES
    assert text_features(text) == text_features(stood_in)[: -len(extra)] + extra


def test_the_stand_in_is_priced_as_one_common_word_and_nothing_else() -> None:
    """After a space, ``STAND_IN`` adds a common word to the features, and nothing else."""
    found = dict(zip(FEATURE_NAMES, text_features(" " + STAND_IN), strict=True))
    assert {name: value for name, value in found.items() if value} == {"common_words": 1}


def _costliest(vocabulary: str, size: int = 600) -> str:
    """The table's words that ``vocabulary`` spends most on, after spaces."""
    place = HELD_VOCABULARIES.index(vocabulary)
    ranked = sorted(shipped().costs.items(), key=lambda item: (-item[1][place], item[0]))
    return "".join(" " + word for word, _ in ranked[:size])


@pytest.mark.parametrize("vocabulary", HELD_VOCABULARIES)
def test_the_words_a_vocabulary_splits_most_do_not_fool_the_guard(vocabulary: str) -> None:
    """A text of the words that cost a vocabulary most (up to nine tokens each) is still
    priced at its share by ``generic`` and by every tokenizer's profile."""
    assert_not_fooled(_costliest(vocabulary))


@pytest.mark.parametrize("around", ["\n{}", "{}\n", "\t{}", "-{}-"])
@pytest.mark.parametrize("word", [" é", " não", " getattr", " fichier", " the"])
def test_what_surrounds_a_stood_in_word_is_priced_as_around_any_word(
    around: str, word: str
) -> None:
    """The stand-in keeps the word's place: the line breaks between short words are not
    joined into one run, which would merge (``"\\n é" * 1000``)."""
    assert_not_fooled(around.format(word) * 1000)


def test_words_a_vocabulary_holds_are_counted_near_its_count() -> None:
    """Words o200k holds whole, between common ones, as in Portuguese or French prose:
    its profile counts them within 5 %, where their letters' price had put such prose
    7-8 % over, and its accented words 38-80 %."""
    place = HELD_VOCABULARIES.index("o200k")
    held = [word for word, costs in sorted(shipped().costs.items()) if costs[place] == 1]
    text = "".join(f" {word} de" for word in held[::100])
    exact = vocabularies()["o200k"](text)
    assert abs(CalibratedCounter("o200k").count(text) - exact) <= 0.05 * exact
