"""Repeated units: the C pass (``_neighbours.periodic_runs``) gives the runs of their
definition (``reference_periodic_runs``) on any bytes, ``repeated_units`` keeps the
runs ordinary text does not hold, and the calibrated counter prices each repetition at
the count of the unit alone."""

from __future__ import annotations

import math
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxbudget.tokens import CalibratedCounter
from ctxbudget.tokens.features import FLOOR_VOCABULARIES, pair_floors, unfamiliar_repeats
from ctxbudget.tokens.repeats import (
    LONG_UNIT,
    LONGEST,
    MOST,
    PRICED_CHARACTERS,
    PRICED_MARKS,
    SHORTEST,
    UNITS,
    RepeatedUnit,
    byte_runs,
    periodic_runs,
    reference_byte_runs,
    reference_periodic_runs,
    repeated_units,
    shortest_runs,
)

from .test_guard import assert_not_fooled

# Few distinct bytes, so that runs, near-runs and runs of one byte are common; lead and
# continuation bytes, so that units cut characters.
_BYTES = st.binary(max_size=80).map(lambda b: bytes(b"ab x\xc3\xa9\n"[c % 7] for c in b))
_PERIODIC = st.builds(
    lambda head, unit, times, tail: head + unit * times + tail,
    _BYTES,
    st.binary(min_size=1, max_size=20),
    st.integers(1, 40),
    _BYTES,
)
_PERIODS = st.tuples(st.integers(2, 20), st.integers(0, 44), st.integers(2, 6)).map(
    lambda t: (t[0], t[0] + t[1], t[2])
)


def _compiled() -> None:
    if getattr(periodic_runs, "__module__", None) != "ctxbudget.tokens._neighbours":
        pytest.fail("the C extension is not built: install with a C compiler (make test does)")


@settings(max_examples=800)
@given(st.one_of(_BYTES, _PERIODIC, st.binary(max_size=300)), _PERIODS)
def test_compiled_periodic_runs_equal_the_definition(
    data: bytes, periods: tuple[int, int, int]
) -> None:
    """Any bytes and any bounds give the same runs both ways (the C pass tests only some
    positions, 16 at a time where SSE2 is at hand, and skips runs of one byte)."""
    _compiled()
    assert periodic_runs(data, *periods) == reference_periodic_runs(data, *periods)


# Marks and the bytes around them, in runs of every length.
_MARK_BYTES = st.lists(
    st.tuples(st.sampled_from(b"~%-a \xc3]\\"), st.integers(1, 40)), max_size=30
).map(lambda runs: b"".join(bytes([byte]) * times for byte, times in runs))


def _table(lengths: dict[int, int]) -> bytes:
    table = bytearray(256)
    for byte, length in lengths.items():
        table[byte] = length
    return bytes(table)


# The shortest run of each of a few bytes (lead and continuation bytes among them).
_SHORTEST = st.dictionaries(st.sampled_from(b"~%-a \xc3]\\"), st.integers(2, 9), max_size=6).map(
    _table
)


@settings(max_examples=800)
@given(st.one_of(_MARK_BYTES, st.binary(max_size=300)), _SHORTEST)
def test_compiled_byte_runs_equal_the_definition(data: bytes, shortest: bytes) -> None:
    """Any bytes and any table of shortest runs give the same runs both ways (the C pass
    tests one position in the table's least length - 1 and grows a hit both ways)."""
    _compiled()
    assert byte_runs(data, shortest) == reference_byte_runs(data, shortest)


def test_a_byte_run_is_a_whole_run_of_one_mark_as_long_as_its_table_asks() -> None:
    """Worked examples: runs of a byte at least as long as the table says, whole (not a
    piece of a longer one), runs of other bytes left out; a table of the wrong size or
    a shortest run of one byte is refused both ways."""
    data = b"~~ ~~~ %%%%x---]]]]\\\\\\ aaaa"
    table = shortest_runs({"~": 3, "%": 3, "-": 3, "]": 3, "\\": 3})
    runs = [(3, 1, 3), (7, 1, 4), (12, 1, 3), (15, 1, 4), (19, 1, 3)]
    assert reference_byte_runs(data, table) == runs
    assert byte_runs(data, table) == runs
    longer = shortest_runs({"~": 3, "%": 5, "]": 4})
    assert byte_runs(data, longer) == reference_byte_runs(data, longer) == [(3, 1, 3), (15, 1, 4)]
    assert byte_runs(data, bytes(256)) == []
    for runs_of in (reference_byte_runs, byte_runs):
        with pytest.raises(ValueError, match="256"):
            runs_of(data, b"\x03")
        with pytest.raises(ValueError, match="at least 2"):
            runs_of(data, _table({ord("~"): 1}))
    with pytest.raises(ValueError, match="one ASCII character"):
        shortest_runs({"é": 3})


def test_runs_of_punctuation_marks_and_letters_are_units_and_pieces_of_rules_are_not() -> None:
    """A mark or a letter written three times or more is a unit of one character
    (priced from each vocabulary's table); a unit holding two in a row of a character
    every vocabulary merges far ("──────┼", a table's rule) is left to the features."""
    found = repeated_units("a ~~~~~ b %%% c -- d hhhh", frozenset())
    assert found == (RepeatedUnit("~", 5), RepeatedUnit("h", 4), RepeatedUnit("%", 3))
    assert set(PRICED_MARKS) == set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    assert set(PRICED_CHARACTERS) == set(PRICED_MARKS + string.ascii_letters)
    rule = "──────┼" * 3
    assert RepeatedUnit("──────┼", 3) in repeated_units(rule, frozenset())
    assert repeated_units(rule, frozenset(), far_merging="─") == (RepeatedUnit("─", 6),) * 3
    assert RepeatedUnit("═══╬", 3) in repeated_units("═══╬" * 3, frozenset(), far_merging="─")


def test_a_periodic_run_is_its_start_its_unit_and_its_length() -> None:
    """Worked examples: the unit is minimal, a run of one byte is none, a run of fewer
    units than asked for is left out, and a run may end with part of a unit."""
    data = b"xx abababab yy    zz TwIhTwIhTwIhTw "
    runs = [(3, 2, 8), (21, 4, 14)]
    assert reference_periodic_runs(data, SHORTEST, LONGEST, UNITS) == runs
    assert periodic_runs(data, SHORTEST, LONGEST, UNITS) == runs
    assert reference_periodic_runs(b"abab", 2, 16, 3) == []  # two units
    assert reference_periodic_runs(b"abab", 2, 16, 2) == [(0, 2, 4)]
    assert reference_periodic_runs(b"aaaaaaaa", 2, 16, 2) == []


@pytest.mark.parametrize(
    ("bounds", "refusal"),
    [((1, 4, 3), "periods"), ((3, 2, 3), "periods"), ((2, 4, 1), "units"), ((2, 4, 65), "units")],
)
def test_periodic_runs_refuse_bounds_they_cannot_keep(
    bounds: tuple[int, int, int], refusal: str
) -> None:
    """A period of one byte (whose runs are the features' business), bounds out of order
    or a run of one unit are refused both ways, not silently clipped."""
    for runs in (reference_periodic_runs, periodic_runs):
        with pytest.raises(ValueError, match=f"{refusal} must satisfy"):
            runs(b"abcabc", *bounds)


def test_the_compiled_pass_refuses_periods_over_its_table() -> None:
    """The C pass keeps no more than 64 lags; a longer one is refused."""
    _compiled()
    with pytest.raises(ValueError, match="<= 64"):
        periodic_runs(b"abcabc", 2, 65, 3)


def test_unfamiliar_repeats_are_what_ordinary_text_does_not_hold() -> None:
    """Uncommon words and characters beyond ASCII repeated count; common words,
    punctuation, escapes, line ends and a unit written only twice do not, unless the
    two make a whole word."""
    assert unfamiliar_repeats("x TwIhTwIhTwIh y") == (RepeatedUnit("TwIh", 3),)
    assert unfamiliar_repeats("x TwIhTwIh y") == (RepeatedUnit("TwIh", 2),)  # one word
    assert unfamiliar_repeats("x TwIhTwIhx y") == ()  # twice, inside a word
    assert unfamiliar_repeats("x TwIh TwIh y") == ()  # twice, apart
    assert unfamiliar_repeats("abab") == ()  # a unit too short to count twice
    assert unfamiliar_repeats("_QZ" * 5) == (RepeatedUnit("_QZ", 5),)
    assert unfamiliar_repeats("กา" * 4) == (RepeatedUnit("กา", 4),)
    assert unfamiliar_repeats("TRUETRUETRUE") == (RepeatedUnit("TRUE", 3),)  # one word
    # An identifier written twice is one word too: letters, digits and underscores.
    assert unfamiliar_repeats("(generated_chatgenerated_chat)") == (
        RepeatedUnit("generated_chat", 2),
    )
    assert unfamiliar_repeats("x_TwIhTwIh") == ()  # twice, inside an identifier
    for ordinary in [
        "> > > > quoted",
        "\\n\\n\\n\\n",
        "line\r\n\r\n\r\nnext",
        "queue",
        "ha ha ha ha",
        "    indented",
        "the the the the",
    ]:
        assert unfamiliar_repeats(ordinary) == (), ordinary
    # A run of one letter is priced from the vocabularies' tables, as a mark's is: no
    # ordinary word holds one three times ("X" * 9 is two tokens of every vocabulary).
    assert unfamiliar_repeats("XXXXXXXXX") == (RepeatedUnit("X", 9),)


def test_a_unit_whose_copies_every_pre_tokenizer_cuts_apart_counts_however_common() -> None:
    """Where a letter of the unit is followed by a punctuation mark (read round), no
    pre-tokenizer joins one copy to the next, so each costs what it costs alone, common
    words or not: ".af" is two tokens of DeepSeek V4's, "(af" two of every vocabulary's,
    and 27 copies were counted 32-48 by the profiles. Escapes are left to the features."""
    assert unfamiliar_repeats(".af" * 27) == (RepeatedUnit(".af", 27),)
    assert unfamiliar_repeats("x(af(af(af") == (RepeatedUnit("(af", 3),)
    assert unfamiliar_repeats("/bookmark/bookmark/bookmark") == (RepeatedUnit("/bookmark", 3),)
    assert unfamiliar_repeats("\\n" * 30) == ()
    assert unfamiliar_repeats("af af af af") == ()  # a space is no mark
    for text in (".af" * 27, "(af" * 27, ":af" * 27, '"af' * 27, "@af" * 27, "-af" * 27):
        assert_not_fooled(text)
    # Priced at their truth where the unit alone is: six tokens of each vocabulary.
    for profile in ("cl100k", "o200k", "deepseek-v4", "qwen3", "generic"):
        assert CalibratedCounter(profile).count("/bookmark/bookmark/bookmark") == 6


def test_a_word_written_twice_as_one_costs_twice_its_half() -> None:
    """ "findablefindable" is four tokens to every vocabulary, twice "findable"; priced as
    one uncommon word it was two or three: each profile counts it at least twice its
    count of the half."""
    for profile in ("cl100k", "o200k", "deepseek-v4", "qwen3", "generic"):
        counter = CalibratedCounter(profile)
        for word in ("findable", "TwIh", "timeout"):
            assert counter.count(word * 2) >= 2 * counter.count(word), (profile, word)


def test_a_long_unit_written_twice_counts_wherever_it_is() -> None:
    """A unit of ``LONG_UNIT`` bytes or more with no ASCII space or punctuation (a random
    key, ideographs) counts written twice, inside a word or not, up to ``LONGEST`` bytes;
    a shorter one written twice inside a word does not (``"needed"``), nor a phrase
    written again."""
    key = "1FzfBUCUWIwyCQFlPqsB"  # 20 bytes
    assert unfamiliar_repeats(f"x={key}{key};") == (RepeatedUnit(key, 2),)
    ideographs = "怹恾怼恬怟怶怂"  # 21 bytes
    assert unfamiliar_repeats(ideographs * 3) == (RepeatedUnit(ideographs, 3),)
    assert unfamiliar_repeats("aQzvbQzv") == ()  # 4 bytes, twice
    assert unfamiliar_repeats("Qzv Xwqk, Qzv Xwqk, ") == ()  # a phrase, twice
    too_long = "".join(chr(0x41 + i % 26 + 32 * (i >= 26)) for i in range(LONGEST + 1))
    assert unfamiliar_repeats(too_long * 2) == ()
    assert LONG_UNIT <= 8 < 20 <= LONGEST


def test_at_most_MOST_units_are_priced_the_longest_first() -> None:
    """A text of a thousand distinct repeated units (hostile: each unit priced costs two
    counts of short text) yields the ``MOST`` longest runs, not all of them. (No unit
    holds a letter three times in a row, whose runs would be found first.)"""
    letters = [c for c in string.ascii_lowercase if c not in "qz"]
    units = [f"q{letters[i // 24 % 24]}{letters[i % 24]}{i // 576}z" for i in range(1000)]
    text = " ".join(unit * (3 + (i == 700) * 10) for i, unit in enumerate(units))
    found = unfamiliar_repeats(text)
    assert len(found) == MOST
    assert found[0] == RepeatedUnit(units[700], 13)


def test_a_run_that_starts_inside_a_character_starts_at_the_next_one() -> None:
    """Units are whole characters: the run of "é" bytes in "xéaéaéa" is "éa", and a
    line of "─" is "─" forty times, not a unit of its bytes turned around."""
    units = repeated_units("xéaéaéa", frozenset())
    assert units == (RepeatedUnit("éa", 3),)
    assert repeated_units("x" + "─" * 40, frozenset()) == (RepeatedUnit("─", 40),)


def test_the_count_of_a_repeated_unit_is_its_repetitions_times_its_count_alone() -> None:
    """Each profile prices "_QZ" * 300 at 300 times its count of "_QZ", at least; the
    guard never counts below any tokenizer's profile."""
    for name in ("cl100k", "o200k", "deepseek-v4", "qwen3", "generic", "central"):
        counter = CalibratedCounter(name)
        assert counter.count("_QZ" * 300) >= 300 * counter.count("_QZ"), name
    guard = CalibratedCounter("generic")
    for text in ["uhVATSAaeQ==", "TwIh" * 3, "hello world", "def f(x):\n    return x\n"]:
        own = [CalibratedCounter(n).count(text) for n in guard.profile.at_least]
        assert guard.count(text) >= max(own), text


def test_a_run_lifts_the_floor_that_priced_the_rest_of_the_text() -> None:
    """Where the pair floor prices the rest of a text ("}~" * 67: 134 tokens of every
    vocabulary, 48-91 estimated) and the estimate prices a run (an unassigned astral
    character, 4 tokens a copy), the run's cost is added to the floor too: 402 tokens
    of every vocabulary, which DeepSeek V4's, o200k's and Qwen's profiles priced at
    316-354 when it was added only to the larger of estimate and floor."""
    run, rest = "\U00099e7a" * 67, "}~" * 67
    for name in ("cl100k", "o200k", "deepseek-v4", "qwen3", "generic"):
        counter = CalibratedCounter(name)
        assert counter.count(run) == 268, name
        assert counter.count(run + rest) >= 268 + 134 - 1, name


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60), st.text(min_size=1, max_size=4), st.integers(2, 60))
def test_repeats_never_lower_a_count(head: str, unit: str, times: int) -> None:
    """Pricing repeats only raises: a text never counts below the rounded estimate and
    the pair floor of its own profile."""
    counter = CalibratedCounter("cl100k")
    text = head + unit * times
    floor = pair_floors(text)[FLOOR_VOCABULARIES.index("cl100k")]
    rounded = math.ceil(counter.estimate(text) - counter.profile.round_down_within)
    assert counter.uncapped(text) >= max(1, rounded, floor)
