"""The text features a calibrated profile weighs: counts of character classes and runs.

Every feature is a count that can only grow when text is appended, and each is taken
by a compiled regular expression or a ``str`` method, so the whole pass runs in C
(no Python loop over characters). ASCII-only text skips the non-ASCII passes.

Two tables ship with the package (``data/feature_tables.json``, derived from real
vocabularies by ``benchmarks/tokens_tables.py``): common English words, which BPE
vocabularies spend one token on, and Han ideographs grouped by how rare they are.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from itertools import filterfalse
from typing import Final

__all__ = [
    "FEATURE_NAMES",
    "text_features",
]

FEATURE_NAMES: Final = (
    "common_words",
    "other_words",
    "common_word_letters",
    "other_word_letters",
    "uppercase",
    "digits",
    "digit_runs",
    "punctuation",
    "punctuation_runs",
    "newlines",
    "space_runs",
    "space_before_non_ascii",
    "han_frequent",
    "han_common",
    "han_rare",
    "kana",
    "hangul",
    "cjk_punctuation",
    "other_two_byte",
    "other_three_byte",
    "astral",
)
"""Feature order, shared by ``text_features`` and every profile."""

_WORDS: Final = re.compile(r"[A-Za-z]+")
_UPPERCASE: Final = re.compile(r"[A-Z]")
_DIGITS: Final = re.compile(r"[0-9]")
_DIGIT_RUNS: Final = re.compile(r"[0-9]+")
_PUNCTUATION: Final = re.compile(r"[!-/:-@\[-`{-~]")
_PUNCTUATION_RUNS: Final = re.compile(r"[!-/:-@\[-`{-~]+")
# Single spaces ride along with the next word; longer runs (indentation) and tabs do not.
_SPACE_RUNS: Final = re.compile(r"[ \t]{2,}|\t")
_SPACE_BEFORE_NON_ASCII: Final = re.compile(r" [^\x00-\x7f]")
_NON_ASCII: Final = re.compile(r"[^\x00-\x7f]")
_HAN: Final = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA: Final = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL: Final = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_CJK_PUNCTUATION: Final = re.compile("[\u3000-\u303f\uff00-\uff65\uffa0-\uffef]")
_TWO_BYTE: Final = re.compile("[\u0080-\u07ff]")
_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


@functools.cache
def _tables() -> tuple[frozenset[str], re.Pattern[str], re.Pattern[str]]:
    raw = (
        resources.files("ctxbudget.tokens").joinpath("data/feature_tables.json").read_text("utf-8")
    )
    tables = json.loads(raw)
    return (
        frozenset(tables["common_words"]),
        re.compile("[" + tables["han_one_token"] + "]"),
        re.compile("[" + tables["han_three_tokens"] + "]"),
    )


def text_features(text: str) -> tuple[int, ...]:
    """The counts named by ``FEATURE_NAMES``, in that order."""
    common_words, han_frequent, han_rare = _tables()
    words = _WORDS.findall(text)
    others = list(filterfalse(common_words.__contains__, words))
    letters = len("".join(words))
    other_letters = len("".join(others))
    ascii_part = (
        len(words) - len(others),
        len(others),
        letters - other_letters,
        other_letters,
        len(_UPPERCASE.findall(text)),
        len(_DIGITS.findall(text)),
        len(_DIGIT_RUNS.findall(text)),
        len(_PUNCTUATION.findall(text)),
        len(_PUNCTUATION_RUNS.findall(text)),
        text.count("\n"),
        len(_SPACE_RUNS.findall(text)),
    )
    if text.isascii():
        return (*ascii_part, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    non_ascii = "".join(_NON_ASCII.findall(text))
    han = "".join(_HAN.findall(non_ascii))
    frequent = len(han_frequent.findall(han))
    rare = len(han_rare.findall(han))
    kana = len(_KANA.findall(non_ascii))
    hangul = len(_HANGUL.findall(non_ascii))
    cjk_punctuation = len(_CJK_PUNCTUATION.findall(non_ascii))
    two_byte = len(_TWO_BYTE.findall(non_ascii))
    astral = len(_ASTRAL.findall(non_ascii))
    three_byte = len(non_ascii) - len(han) - kana - hangul - cjk_punctuation - two_byte - astral
    return (
        *ascii_part,
        len(_SPACE_BEFORE_NON_ASCII.findall(text)),
        frequent,
        len(han) - frequent - rare,
        rare,
        kana,
        hangul,
        cjk_punctuation,
        two_byte,
        three_byte,
        astral,
    )
