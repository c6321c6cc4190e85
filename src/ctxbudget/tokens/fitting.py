"""``fit_profile``: calibrate a profile against counts from any tokenizer or API.

The fit minimizes the squared *relative* error, sum((estimate - count) / count)^2,
so a short sample weighs as much as a long one, under the constraint that every weight
is >= 0 (which keeps counts monotone as text grows). It is plain Python: the normal
equations are accumulated once, then solved by projected coordinate descent, whose
steps are exact for a quadratic, so it converges without a step size.
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxbudget.errors import ProfileError
from ctxbudget.tokens.calibrated import Profile
from ctxbudget.tokens.features import FEATURE_NAMES, text_features

__all__ = ["fit_profile"]

_SWEEPS = 20_000
_TOLERANCE = 1e-12


def fit_profile(
    samples: Iterable[tuple[str, int]], *, name: str = "fitted", about: str = ""
) -> Profile:
    """A profile fitted to ``(text, true token count)`` pairs.

    Give a few hundred samples of a few thousand characters each, covering the kinds of
    text you will count (prose, code, JSON, each language): a feature that never occurs
    in the samples gets weight 0. Samples with an empty text or a count <= 0 are skipped.
    """
    gram, target, used = _normal_equations(samples)
    if used == 0:
        raise ProfileError("fit_profile needs at least one sample with text and a count > 0")
    weights = _nonnegative_least_squares(gram, target)
    return Profile(name=name, weights=tuple(weights), about=about or f"fitted on {used} samples")


def _normal_equations(
    samples: Iterable[tuple[str, int]],
) -> tuple[list[list[float]], list[float], int]:
    size = len(FEATURE_NAMES)
    gram = [[0.0] * size for _ in range(size)]
    target = [0.0] * size
    used = 0
    for text, count in samples:
        if not text or count <= 0:
            continue
        used += 1
        row = [x / count for x in text_features(text)]  # relative error: scale by 1/count
        for i, xi in enumerate(row):
            if xi:
                target[i] += xi
                gram_i = gram[i]
                for j, xj in enumerate(row):
                    gram_i[j] += xi * xj
    return gram, target, used


def _nonnegative_least_squares(gram: list[list[float]], target: list[float]) -> list[float]:
    """argmin over w >= 0 of w'Gw - 2b'w, by exact coordinate steps."""
    size = len(target)
    weights = [0.0] * size
    for _ in range(_SWEEPS):
        largest_step = 0.0
        for i in range(size):
            if gram[i][i] <= 0.0:
                continue  # the feature never occurs: leave its weight at 0
            residual = target[i] - sum(g * w for g, w in zip(gram[i], weights, strict=True))
            new = max(0.0, weights[i] + residual / gram[i][i])
            largest_step = max(largest_step, abs(new - weights[i]))
            weights[i] = new
        if largest_step < _TOLERANCE:
            break
    return weights
