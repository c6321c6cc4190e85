"""The two fixed heuristics of the seeds, reproduced exactly.

Both are far from real tokenizers (see ``CalibratedCounter``); they exist so that
the seeds' numbers can be reproduced and compared against.
"""

from __future__ import annotations

import math
import re
from typing import Final

__all__ = [
    "CHARS_PER_TOKEN",
    "CJK_OTHER_CHARS_PER_TOKEN",
    "CJK_TOKENS_PER_CHAR",
    "CJKCounter",
    "Chars4Counter",
    "utf16_units",
]

CHARS_PER_TOKEN: Final = 4
"""The replay meter's rule: four UTF-16 code units a token."""

CJK_TOKENS_PER_CHAR: Final = 1.306
"""The request-path rule: tokens per CJK code point."""
CJK_OTHER_CHARS_PER_TOKEN: Final = 3.6
"""The request-path rule: other characters per token."""

# Hiragana+Katakana, Ext. A, Unified Ideographs, Hangul syllables, Compatibility
# Ideographs, Half/Fullwidth forms. CJK punctuation (U+3000-303F) and Ext. B+ are
# deliberately "other", as in the seed.
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]"
)


def utf16_units(text: str) -> int:
    """Length in UTF-16 code units, the unit JavaScript's ``length`` counts."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class Chars4Counter:
    """``ceil(UTF-16 code units / 4)``: the replay meter's fixed heuristic (seed 002)."""

    name = "chars4"

    def count(self, text: str) -> int:
        """Tokens in ``text`` by the four-characters rule."""
        return -(-utf16_units(text) // CHARS_PER_TOKEN)

    def __repr__(self) -> str:
        return "Chars4Counter()"


class CJKCounter:
    """1.306 tokens a CJK code point, other code points / 3.6, one ceiling (seed 003)."""

    name = "cjk"

    def count(self, text: str) -> int:
        """Tokens in ``text`` by the CJK-aware rule."""
        if not text:
            return 0
        cjk = 0 if text.isascii() else len(_CJK.findall(text))
        other = len(text) - cjk
        # Same order of operations as the seed, in double precision.
        return math.ceil(cjk * CJK_TOKENS_PER_CHAR + other / CJK_OTHER_CHARS_PER_TOKEN)

    def __repr__(self) -> str:
        return "CJKCounter()"
