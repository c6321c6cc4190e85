"""``get_counter(spec)``: a token counter from a short text spec.

Specs::

    chars4                      the replay meter's four-characters rule (seed 002)
    cjk                         the CJK-aware rule (seed 003)
    exact:<vocabulary>          the fastest installed exact backend, e.g. exact:o200k_base
    tiktoken:<encoding>         exact, e.g. tiktoken:cl100k_base (extra "tiktoken")
    bpe-openai:<encoding>       exact, cl100k_base or o200k_base (extra "bpe")
    hf:<path>                   exact, a tokenizer.json or its directory (extra "hf")
    tokie:<path>                tokie's reading of a tokenizer.json (extra "tokie")
    calibrated:<profile>        a built-in profile name or the path of a profile JSON file
    auto:<model name>           the best counter available offline for that model

``auto:`` never touches the network: an exact backend is used only when its vocabulary
ships in an installed package (or is already on disk), otherwise the calibrated profile
of that model family. The table of model families lives here, in the tokens layer, so
that ``ctxbudget.models`` (which adds windows and prices) and ``auto:`` share it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ctxbudget.errors import UnknownCounterError
from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.calibrated import PROFILE_NAMES, CalibratedCounter, load_profile
from ctxbudget.tokens.exact import (
    BpeOpenAICounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokieCounter,
)
from ctxbudget.tokens.heuristics import Chars4Counter, CJKCounter
from ctxbudget.tokens.vocabularies import exact_available, exact_counter

__all__ = [
    "MODEL_FAMILIES",
    "SPEC_FORMS",
    "ModelFamily",
    "get_counter",
    "model_counter",
    "model_counter_spec",
    "model_family",
]

SPEC_FORMS: Final = (
    "chars4",
    "cjk",
    "exact:<vocabulary>",
    "tiktoken:<encoding>",
    "bpe-openai:<encoding>",
    "hf:<path>",
    "tokie:<path>",
    "calibrated:<profile name or JSON path>",
    "auto:<model name>",
)
"""The forms ``get_counter`` accepts, for error messages and docs."""


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """Models that share a tokenizer.

    ``pattern`` matches the model name (lower case, without a ``provider/`` prefix) from
    its start; ``vocabulary`` is the exact vocabulary (``exact:<vocabulary>``), empty
    when no tokenizer is public; ``profiles`` are calibrated profiles to fall back on,
    the first one shipped wins.
    """

    name: str
    pattern: re.Pattern[str]
    vocabulary: str
    profiles: tuple[str, ...]

    def profile(self) -> str:
        """The calibrated profile this family falls back on."""
        return next((p for p in self.profiles if p in PROFILE_NAMES), "generic")


# Patterns, like tiktoken's model prefixes, so a new model version needs no library
# update; the first family that matches wins. "o200k" is the calibrated profile of that
# vocabulary where it ships, else the nearest one, cl100k.
MODEL_FAMILIES: Final = (
    ModelFamily(
        "openai-o200k",
        # gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and any later major version, gpt-oss (o200k_harmony:
        # the same ranks), chatgpt-4o, and the o-series reasoning models (o1, o3, o4-mini...).
        re.compile(r"(gpt-4o|gpt-4\.[1-9]|gpt-([5-9]|[1-9]\d)|gpt-oss|chatgpt-4o|o[1-9]\d*(\b|-))"),
        "o200k_base",
        ("o200k", "cl100k"),
    ),
    ModelFamily(
        "openai-cl100k",
        re.compile(r"(gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)"),
        "cl100k_base",
        ("cl100k",),
    ),
    ModelFamily("deepseek", re.compile(r"deepseek"), "deepseek-v4", ("deepseek-v4",)),
    ModelFamily("qwen", re.compile(r"(qwen|qwq)"), "", ("qwen3",)),
    # No public tokenizer: a profile fitted to provider usage where one ships, else generic.
    ModelFamily("claude", re.compile(r"claude"), "", ("claude", "generic")),
)
"""Model families by name pattern (see ``ModelFamily``)."""


def model_family(model: str) -> ModelFamily | None:
    """The family of a model name, or ``None`` when no pattern matches it."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return next((f for f in MODEL_FAMILIES if f.pattern.match(name)), None)


def model_counter_spec(model: str) -> str:
    """The spec of the best counter available offline for a model name.

    ``exact:<vocabulary>`` when the family has a public vocabulary and an exact backend
    is installed, else ``calibrated:<profile>`` of the family; ``calibrated:generic``
    (the conservative guard) for a name no family matches.
    """
    family = model_family(model)
    if family is None:
        return "calibrated:generic"
    if family.vocabulary and exact_available(family.vocabulary):
        return f"exact:{family.vocabulary}"
    return f"calibrated:{family.profile()}"


def model_counter(model: str) -> TokenCounter:
    """The best counter available offline for a model name (the ``auto:`` spec)."""
    return get_counter(model_counter_spec(model))


def get_counter(spec: str) -> TokenCounter:
    """The counter a spec names (see the module docstring for the forms)."""
    if not isinstance(spec, str):
        raise UnknownCounterError(
            f"a token counter spec is a string, not {type(spec).__name__}; valid forms: "
            f"{', '.join(SPEC_FORMS)}"
        )
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


_SIMPLE: Final[dict[str, Callable[[], TokenCounter]]] = {
    "chars4": Chars4Counter,
    "cjk": CJKCounter,
}
_WITH_ARGUMENT: Final[dict[str, Callable[[str], TokenCounter]]] = {
    "exact": exact_counter,
    "tiktoken": TiktokenCounter,
    "bpe-openai": BpeOpenAICounter,
    "hf": HFTokenizerCounter,
    "tokie": TokieCounter,
    "calibrated": _calibrated,
    "auto": model_counter,
}
