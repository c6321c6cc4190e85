"""``CompactionConfig``: when to compact, how much to keep, how hard to try.

The defaults are the reference backend's (docs/compaction.md): compact at 80 % of
the window, keep the newest 16 % of the window verbatim, let a summary take up to
8,192 tokens, try once more if the first compaction was not enough, recover from
one context overflow per request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final

from ctxbudget.errors import ConfigError
from ctxbudget.summaries import ExtractiveSummarizer, OpenAICompatibleSummarizer, Summarizer

__all__ = ["DEFAULT_RETAIN_RATIO", "CompactionConfig"]

DEFAULT_RETAIN_RATIO: Final = 0.16
"""Share of the window kept verbatim at the tail when ``retain_tokens`` is not set."""


@dataclass(frozen=True, slots=True)
class CompactionConfig:
    """How a ``Compactor`` decides and bounds its work.

    ``threshold_ratio``: compact when the measured total reaches this share of the
    window (in (0, 1]).
    ``retain_tokens``: tokens of newest history kept verbatim; ``None`` means
    ``floor(window * 0.16)``. Must stay below the threshold in tokens.
    ``summary_max_tokens``: the most a summary may take (a summary is also always
    asked to be smaller than what it replaces).
    ``compaction_retries``: extra compactions when one was not enough to get below
    the threshold. ``max_overflow_retries``: overflow recoveries per request (0 turns
    overflow recovery off); read by hosts that retry a request after compacting.
    ``auto``: whether hosts (the proxy, the enforce path) compact on their own after
    each response; calling a ``Compactor`` yourself works either way.
    ``summary_provider`` / ``summary_model``: an OpenAI-compatible base URL and model
    to summarize with (``summarizer()`` builds it), both set or both empty (then the
    offline ``ExtractiveSummarizer``).
    """

    threshold_ratio: float = 0.8
    retain_tokens: int | None = None
    summary_max_tokens: int = 8192
    compaction_retries: int = 1
    max_overflow_retries: int = 1
    auto: bool = True
    summary_provider: str = ""
    summary_model: str = ""

    def __post_init__(self) -> None:
        ratio = self.threshold_ratio
        if (
            not isinstance(ratio, int | float)
            or isinstance(ratio, bool)
            or not math.isfinite(ratio)
            or not 0 < ratio <= 1
        ):
            raise ConfigError(
                f"CompactionConfig: threshold_ratio ({ratio!r}) must be a number in (0, 1]"
            )
        if self.retain_tokens is not None:
            _integer("retain_tokens", self.retain_tokens, minimum=0)
        _integer("summary_max_tokens", self.summary_max_tokens, minimum=1)
        _integer("compaction_retries", self.compaction_retries, minimum=0)
        _integer("max_overflow_retries", self.max_overflow_retries, minimum=0)
        if not isinstance(self.auto, bool):
            raise ConfigError(f"CompactionConfig: auto ({self.auto!r}) must be true or false")
        for name in ("summary_provider", "summary_model"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(f"CompactionConfig: {name} must be a string")
        if bool(self.summary_provider) != bool(self.summary_model):
            raise ConfigError(
                "CompactionConfig: summary_provider and summary_model must both be set "
                "or both be empty"
            )

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> CompactionConfig:
        """A config from a TOML/JSON table; unknown keys are refused, naming the allowed ones."""
        if not isinstance(settings, Mapping):
            raise ConfigError(
                f"CompactionConfig.from_mapping: settings is a {type(settings).__name__}; "
                "pass a table of keys (a dict)"
            )
        allowed = [f.name for f in fields(cls)]
        for key in settings:
            if key not in allowed:
                raise ConfigError(
                    f"CompactionConfig: unknown key {key!r} (allowed: {', '.join(allowed)})"
                )
        return cls(**settings)

    def threshold_tokens(self, context_window: int) -> int:
        """The total at which compaction starts: ``floor(window * threshold_ratio)``."""
        _window(context_window)
        return math.floor(context_window * self.threshold_ratio)

    def retain_for(self, context_window: int) -> int:
        """Tokens kept verbatim for ``context_window``; ``ConfigError`` if not below the
        threshold (a tail that large leaves nothing a compaction could relieve)."""
        _window(context_window)
        if self.retain_tokens is not None:
            retain = self.retain_tokens
        else:
            retain = math.floor(context_window * DEFAULT_RETAIN_RATIO)
        threshold = self.threshold_tokens(context_window)
        if retain >= threshold:
            raise ConfigError(
                f"CompactionConfig: retain_tokens ({retain}) must be less than the threshold "
                f"of {threshold} tokens (window {context_window} * threshold_ratio "
                f"{self.threshold_ratio}); keep a shorter tail or raise threshold_ratio"
            )
        return retain

    def summarizer(self, api_key: str | None = None) -> Summarizer:
        """The summarizer these settings name: OpenAI-compatible, or extractive offline."""
        if not self.summary_provider:
            return ExtractiveSummarizer()
        return OpenAICompatibleSummarizer(
            self.summary_provider, self.summary_model, api_key, self.summary_max_tokens
        )


def _integer(name: str, value: Any, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise ConfigError(f"CompactionConfig: {name} ({value!r}) must be {kind}")


def _window(context_window: Any) -> None:
    if (
        not isinstance(context_window, int)
        or isinstance(context_window, bool)
        or context_window <= 0
    ):
        raise ConfigError(
            f"CompactionConfig: context_window ({context_window!r}) must be a positive integer"
        )
