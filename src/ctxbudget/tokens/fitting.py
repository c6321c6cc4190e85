"""``fit_profile``: calibrate a profile against counts from any tokenizer or API.

The fit minimizes the squared *relative* error, ((estimate - count) / count)^2, so a
short sample weighs as much as a long one, under the constraint that every weight is
>= 0 (which keeps counts monotone as text grows), or at least its floor when given.

A budget is safer over than under, so by default the fit is an *expectile* regression:
an underestimate costs ``expectile / (1 - expectile)`` times as much as an overestimate
of the same size (``expectile=0.5`` is plain least squares). It is solved by iteratively
reweighted least squares: the samples are split into those currently under- and
overestimated, each side's normal equations are kept up to date as samples cross over,
and the non-negative least-squares problem is solved by projected coordinate descent,
whose steps are exact for a quadratic, so it needs no step size. Plain Python.

``loss="absolute"`` minimizes the *absolute* relative error instead, |estimate - count| /
count, the figure a per-text error reports: the fit then follows the typical sample (a
median) rather than the mean of squares, which a few samples priced far off pull towards
them. It is solved the same way, each round weighing a sample by one over its last
absolute error (at least ``ABSOLUTE_SMOOTHING``), so that the squared loss of the round
equals the absolute loss at the last weights; with ``expectile`` it is the asymmetric
absolute loss of quantile regression.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from ctxbudget.errors import ProfileError
from ctxbudget.tokens.calibrated import Profile
from ctxbudget.tokens.features import FEATURE_NAMES, text_features

__all__ = [
    "ABSOLUTE_SMOOTHING",
    "DEFAULT_EXPECTILE",
    "Loss",
    "fit_profile",
    "fit_profile_from_usage",
]

DEFAULT_EXPECTILE = 0.6
"""Underestimates cost 0.6 / 0.4 = 1.5 times as much as overestimates."""

Loss = Literal["squared", "absolute"]
_LOSSES: tuple[Loss, ...] = ("squared", "absolute")

ABSOLUTE_SMOOTHING = 0.02
"""In the absolute loss's rounds, a sample priced within 2 % of its count weighs as one
priced 2 % off: a sample priced exactly would otherwise take all the weight of the next
round (the loss minimized is then Huber's, quadratic within 2 % and absolute beyond)."""

_SWEEPS = 20_000
_TOLERANCE = 1e-10
_REWEIGHTS = 30
_ABSOLUTE_ROUNDS = 12
_ABSOLUTE_CONVERGED = 1e-4
"""The absolute loss's rounds stop once a round lowers the loss by less than this share."""

Matrix = list[list[float]]


def fit_profile(
    samples: Iterable[tuple[str, int] | tuple[str, int, float]],
    *,
    name: str = "fitted",
    about: str = "",
    expectile: float = DEFAULT_EXPECTILE,
    floors: Mapping[str, float] | None = None,
    ceilings: Mapping[str, float] | None = None,
    loss: Loss = "squared",
) -> Profile:
    """A profile fitted to ``(text, true token count)`` pairs.

    Give a few hundred samples of a few thousand characters each, covering the kinds of
    text you will count (prose, code, JSON, each language): a feature that never occurs
    in the samples gets weight 0. Samples with an empty text or a count <= 0 are skipped.
    A sample may carry a third item, how much it weighs in the fit (default 1; weigh the
    kinds of text that matter most to you more, so that the compromise the fit makes
    between kinds favours them).
    ``expectile`` in (0, 1): above 0.5 the fit leans towards overestimating.
    ``floors``: the least weight of some features (feature name -> weight), such as the
    worst-case price of a character class, so that a count can never fall below it
    however rare that class is in the samples.
    ``ceilings``: the most weight of some features (at least their floor): 0 keeps a
    feature out of the profile, and a feature whose price is known (the tokens a
    vocabulary spends on a word beyond one) need not be fitted above it, where the fit
    would make it stand for whatever else the texts that hold it cost.
    ``loss``: ``"squared"`` (the default) or ``"absolute"``, which minimizes the mean
    absolute relative error a per-text error figure reports (see the module's
    docstring); a few times slower.
    """
    if not 0.0 < expectile < 1.0:
        raise ProfileError(f"expectile must be between 0 and 1, got {expectile}")
    if loss not in _LOSSES:
        raise ProfileError(f"loss must be one of {', '.join(_LOSSES)}, got {loss!r}")
    bounds = _bounds(floors or {}, ceilings or {})
    rows: list[list[float]] = []
    importance: list[float] = []
    for sample in samples:
        text, count, weight = _sample(sample)
        if text and count > 0:
            rows.append([x / count for x in text_features(text)])  # relative error: 1/count
            importance.append(weight)
    if not rows:
        raise ProfileError("fit_profile needs at least one sample with text and a count > 0")
    weights = _expectile_fit(rows, expectile, bounds, importance=importance)
    if loss == "absolute":
        weights = _absolute_fit(rows, expectile, bounds, importance, weights)
    return Profile(
        name=name, weights=tuple(weights), about=about or f"fitted on {len(rows)} samples"
    )


def fit_profile_from_usage(
    deltas: Iterable[tuple[Sequence[str], int]],
    *,
    name: str = "usage",
    about: str = "",
    expectile: float = 0.5,
    floors: Mapping[str, float] | None = None,
    prior: Profile | None = None,
    prior_strength: float = 0.0,
) -> Profile:
    """A profile fitted to provider-reported usage, for a model whose tokenizer is not
    public.

    Each delta is ``(texts, growth)``: the texts a conversation gained between two calls
    (the first call's reply and tool calls, the tool results that came back, a new user
    message) and how much the reported prompt grew from the first call to the second
    (input + cache read + cache write tokens). The provider's count of those texts is
    the growth, so the fit is ``fit_profile``'s over the summed features of each delta.
    Deltas whose growth is <= 0 (a cache reset, a compaction) or whose texts are empty
    are skipped. ``expectile`` defaults to 0.5: an unbiased predictor of the provider's
    figure; raise it for a profile that leans over.

    A few hundred deltas of one kind of traffic cannot pin down every feature, so the
    fit can be pulled towards a ``prior`` profile (such as ``central``):
    ``prior_strength`` adds that many times ``(weight - prior weight)^2`` per delta to
    the squared relative error being minimized (ridge regression towards the prior);
    features the deltas say little about then keep the prior's weight.
    """
    if not 0.0 < expectile < 1.0:
        raise ProfileError(f"expectile must be between 0 and 1, got {expectile}")
    bounds = _bounds(floors or {}, {})
    rows = []
    for texts, growth in deltas:
        if growth <= 0 or not any(texts):
            continue
        summed = [0] * len(FEATURE_NAMES)
        for text in texts:
            summed = [a + b for a, b in zip(summed, text_features(text), strict=True)]
        rows.append([x / growth for x in summed])
    if not rows:
        raise ProfileError(
            "fit_profile_from_usage needs at least one delta with text and a growth > 0"
        )
    pull = (prior.weights, prior_strength * len(rows)) if prior is not None else None
    weights = _expectile_fit(rows, expectile, bounds, pull)
    return Profile(
        name=name,
        weights=tuple(weights),
        about=about or f"fitted to provider usage over {len(rows)} deltas",
    )


def _sample(sample: tuple[str, int] | tuple[str, int, float]) -> tuple[str, int, float]:
    """A sample's text, count and weight (1 when it has none)."""
    if not isinstance(sample, tuple | list) or len(sample) not in (2, 3):
        shown = repr(sample)[:80]
        raise ProfileError(f"a sample is (text, count) or (text, count, weight), got {shown}")
    text, count = sample[0], sample[1]
    weight = sample[2] if len(sample) == 3 else 1.0
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not weight > 0:
        raise ProfileError(f"a sample's weight must be a number > 0, got {weight!r}")
    if not math.isfinite(weight):
        raise ProfileError(f"a sample's weight must be finite, got {weight!r}")
    return text, count, float(weight)


def _lower_bounds(floors: Mapping[str, float]) -> list[float]:
    unknown = sorted(set(floors) - set(FEATURE_NAMES))
    if unknown:
        raise ProfileError(f"floors name unknown features {unknown}")
    bad = sorted(name for name, value in floors.items() if not value >= 0)
    if bad:
        raise ProfileError(f"floors must be numbers >= 0 ({', '.join(bad)})")
    return [float(floors.get(name, 0.0)) for name in FEATURE_NAMES]


Bounds = tuple[list[float], list[float]]


def _bounds(floors: Mapping[str, float], ceilings: Mapping[str, float]) -> Bounds:
    """The least and the most weight of each feature."""
    lower = _lower_bounds(floors)
    unknown = sorted(set(ceilings) - set(FEATURE_NAMES))
    if unknown:
        raise ProfileError(f"ceilings name unknown features {unknown}")
    upper = [float(ceilings.get(name, math.inf)) for name in FEATURE_NAMES]
    bad = sorted(
        name
        for name, least, most in zip(FEATURE_NAMES, lower, upper, strict=True)
        if not most >= least
    )
    if bad:
        raise ProfileError(f"ceilings must be numbers >= the floors, and >= 0 ({', '.join(bad)})")
    return lower, upper


def _expectile_fit(
    rows: Sequence[list[float]],
    expectile: float,
    bounds: Bounds,
    pull: tuple[Sequence[float], float] | None = None,
    importance: Sequence[float] | None = None,
    start: list[float] | None = None,
) -> list[float]:
    """``pull``: (prior weights, strength): a ridge term towards the prior;
    ``importance``: how much each row weighs (1 each by default); ``start``: where the
    descent starts (the floors by default); ``bounds``: the least and the most weight
    of each feature."""
    lower, upper = bounds
    size = len(FEATURE_NAMES)
    importance = importance or [1.0] * len(rows)
    gram_all, target_all = _zeros(size), [0.0] * size
    for row, weight in zip(rows, importance, strict=True):
        _accumulate(gram_all, target_all, row, weight)
    gram_under, target_under = _zeros(size), [0.0] * size
    under = [False] * len(rows)
    weights = [
        min(most, max(w, least))
        for w, least, most in zip(start or lower, lower, upper, strict=True)
    ]
    for _ in range(_REWEIGHTS):
        gram = [
            [expectile * u + (1 - expectile) * (a - u) for u, a in zip(gu, ga, strict=True)]
            for gu, ga in zip(gram_under, gram_all, strict=True)
        ]
        target = [
            expectile * u + (1 - expectile) * (a - u)
            for u, a in zip(target_under, target_all, strict=True)
        ]
        if pull is not None:
            prior_weights, strength = pull
            for i, prior_weight in enumerate(prior_weights):
                gram[i][i] += strength
                target[i] += strength * prior_weight
        weights = _bounded_least_squares(gram, target, weights, bounds)
        changed = False
        for i, row in enumerate(rows):
            is_under = _dot(row, weights) < 1.0
            if is_under != under[i]:
                under[i] = is_under
                sign = 1.0 if is_under else -1.0
                _accumulate(gram_under, target_under, row, sign * importance[i])
                changed = True
        if not changed:
            break
    return weights


def _absolute_fit(
    rows: Sequence[list[float]],
    expectile: float,
    bounds: Bounds,
    importance: Sequence[float],
    start: list[float],
) -> list[float]:
    """The weights that minimize the (asymmetric) absolute relative error, by rounds of
    ``_expectile_fit`` from ``start``, each sample weighed by one over its last error."""
    weights, errors = start, _errors(rows, start)
    best = _absolute_loss(errors, expectile, importance)
    for _ in range(_ABSOLUTE_ROUNDS):
        reweighted = [
            weight / max(abs(error), ABSOLUTE_SMOOTHING)
            for error, weight in zip(errors, importance, strict=True)
        ]
        candidate = _expectile_fit(rows, expectile, bounds, importance=reweighted, start=weights)
        candidate_errors = _errors(rows, candidate)
        loss = _absolute_loss(candidate_errors, expectile, importance)
        if loss < best:
            weights, errors, improved, best = candidate, candidate_errors, best - loss, loss
            if improved > _ABSOLUTE_CONVERGED * best:
                continue
        break
    return weights


def _errors(rows: Sequence[list[float]], weights: list[float]) -> list[float]:
    """Each row's relative error at ``weights``."""
    return [_dot(row, weights) - 1.0 for row in rows]


def _absolute_loss(errors: list[float], expectile: float, importance: Sequence[float]) -> float:
    """The weighted absolute relative error, underestimates times ``expectile`` and
    overestimates times ``1 - expectile``."""
    total = 0.0
    for error, weight in zip(errors, importance, strict=True):
        total += weight * abs(error) * (expectile if error < 0 else 1.0 - expectile)
    return total


def _dot(row: list[float], weights: list[float]) -> float:
    return sum(w * x for w, x in zip(weights, row, strict=True))


def _zeros(size: int) -> Matrix:
    return [[0.0] * size for _ in range(size)]


def _accumulate(gram: Matrix, target: list[float], row: list[float], sign: float) -> None:
    """Add (or with a negative sign remove) one sample's terms of the normal equations,
    times ``abs(sign)``."""
    for i, xi in enumerate(row):
        if xi:
            target[i] += sign * xi
            gram_i = gram[i]
            for j, xj in enumerate(row):
                gram_i[j] += sign * xi * xj


def _bounded_least_squares(
    gram: Matrix, target: list[float], start: list[float], bounds: Bounds
) -> list[float]:
    """argmin over lower <= w <= upper of w'Gw - 2b'w, by exact coordinate steps from
    ``start``."""
    lower, upper = bounds
    weights = list(start)
    for _ in range(_SWEEPS):
        largest_step = 0.0
        for i, gram_i in enumerate(gram):
            if gram_i[i] <= 1e-15:
                weights[i] = lower[i]  # the feature never occurs: no evidence for more
                continue
            residual = target[i] - sum(g * w for g, w in zip(gram_i, weights, strict=True))
            new = min(upper[i], max(lower[i], weights[i] + residual / gram_i[i]))
            largest_step = max(largest_step, abs(new - weights[i]))
            weights[i] = new
        if largest_step < _TOLERANCE:
            break
    return weights
