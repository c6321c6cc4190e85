"""CompactionConfig: the defaults of seed 002's backend (docs/compaction.md, "Configuration"),
independent overrides, clear refusals."""

from __future__ import annotations

from typing import Any

import pytest

from ctxbudget.compaction import CompactionConfig
from ctxbudget.errors import ConfigError
from ctxbudget.summaries import ExtractiveSummarizer, OpenAICompatibleSummarizer


def test_defaults_are_the_reference_backends() -> None:
    config = CompactionConfig()
    assert (config.threshold_ratio, config.summary_max_tokens) == (0.8, 8192)
    assert (config.compaction_retries, config.max_overflow_retries, config.auto) == (1, 1, True)
    assert config.retain_for(1000) == 160
    assert config.retain_for(128_000) == 20_480
    assert config.threshold_tokens(1000) == 800


def test_overrides_are_independent() -> None:
    assert CompactionConfig(threshold_ratio=0.5).retain_for(1000) == 160
    assert CompactionConfig(retain_tokens=70).threshold_ratio == 0.8


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"summary_max_tokens": 0}, "summary_max_tokens"),
        ({"compaction_retries": -1}, "compaction_retries"),
        ({"max_overflow_retries": -1}, "max_overflow_retries"),
        ({"auto": "yes"}, "auto"),
        ({"summary_provider": 1}, "summary_provider must be a string"),
        ({"summary_model": 1, "summary_provider": "x"}, "summary_model must be a string"),
        ({"summary_provider": "http://x"}, "must both be set or both be empty"),
        ({"summary_model": "m"}, "must both be set or both be empty"),
        ({"threshold_ratio": 0}, r"number in \(0, 1\]"),
        ({"threshold_ratio": 1.1}, r"number in \(0, 1\]"),
        ({"threshold_ratio": float("nan")}, r"number in \(0, 1\]"),
        ({"retain_tokens": -1}, "non-negative integer"),
        ({"retain_tokens": 1.5}, "non-negative integer"),
        ({"models": {}}, "unknown key 'models'"),
        ({"thresholdRato": 0.5}, "unknown key 'thresholdRato'"),
    ],
)
def test_bad_settings_are_refused_with_what_is_wrong(
    settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        CompactionConfig.from_mapping(settings)


@pytest.mark.parametrize(("retain", "ok"), [(500, False), (800, False), (799, True)])
def test_the_retained_tail_must_stay_below_the_threshold(retain: int, ok: bool) -> None:
    ratio = 0.5 if retain == 500 else 0.8
    config = CompactionConfig(threshold_ratio=ratio, retain_tokens=retain)
    if ok:
        assert config.retain_for(1000) == retain
    else:
        with pytest.raises(ConfigError, match="less than the threshold"):
            config.retain_for(1000)


def test_the_summarizer_named_by_the_settings() -> None:
    assert isinstance(CompactionConfig().summarizer(), ExtractiveSummarizer)
    remote = CompactionConfig(summary_provider="http://127.0.0.1:1/v1", summary_model="m")
    built = remote.summarizer()
    assert isinstance(built, OpenAICompatibleSummarizer)
    assert (built.base_url, built.model, built.max_tokens) == ("http://127.0.0.1:1/v1", "m", 8192)
