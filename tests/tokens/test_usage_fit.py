"""``fit_profile_from_usage``: a profile from call-to-call prompt growth."""

from __future__ import annotations

import random

import pytest

from ctxbudget.errors import ProfileError
from ctxbudget.tokens import CalibratedCounter, builtin_profile, fit_profile_from_usage

WORDS = [
    "the",
    "build",
    "failed",
    "so",
    "I",
    "reran",
    "the",
    "tests",
    "你好",
    "世界",
    "def",
    "main():",
    "return",
    "42",
]


def _deltas(seed: int, scale: float) -> list[tuple[list[str], int]]:
    """Deltas whose growth is a known counter's count of the texts, times ``scale``."""
    rng = random.Random(seed)
    counter = CalibratedCounter("cl100k")
    deltas = []
    for _ in range(120):
        texts = [" ".join(rng.choices(WORDS, k=rng.randrange(5, 80))) for _ in range(3)]
        deltas.append((texts, round(scale * sum(map(counter.count, texts)))))
    return deltas


def test_a_profile_fitted_to_usage_predicts_the_growth_it_was_fitted_to() -> None:
    """Growth 1.3 x cl100k's count: the fitted profile predicts unseen deltas within 3 %."""
    profile = fit_profile_from_usage(_deltas(1, 1.3), name="provider")
    counter = CalibratedCounter(profile)
    held_out = _deltas(2, 1.3)
    predicted = sum(counter.count(t) for texts, _ in held_out for t in texts)
    assert predicted == pytest.approx(sum(g for _, g in held_out), rel=0.03)
    assert profile.name == "provider"
    assert "120 deltas" in profile.about


def test_deltas_without_growth_or_text_are_skipped_and_none_left_is_an_error() -> None:
    with pytest.raises(ProfileError, match="at least one delta"):
        fit_profile_from_usage([(["some text"], 0), ([""], 12), (["x"], -5)])
    with pytest.raises(ProfileError, match="expectile"):
        fit_profile_from_usage(_deltas(1, 1.0), expectile=0.0)


def test_the_shipped_claude_profile_was_fitted_from_usage() -> None:
    assert "fit_profile_from_usage" in builtin_profile("claude").about
