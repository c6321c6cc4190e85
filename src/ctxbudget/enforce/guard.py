"""The cache guard: when the prompt cache is hot and the overshoot mild, do nothing.

Rewriting any part of the history changes the bytes the provider's prompt cache
is keyed on and forces the whole prefix to be rebuilt; with a hot cache that
rebuild can cost more than the tokens a compression saves (seed 003, after
arXiv:2607.12161). The guard never lets a request past the model's hard cap.
"""

from __future__ import annotations

__all__ = [
    "overshoot_ratio",
    "should_skip_for_cache",
]


def overshoot_ratio(estimated: int, budget: int) -> float:
    """How far over budget, as a fraction (``0.15`` = 15 % over); 0.0 for no budget.

    Same operations as the reference, so ``overshoot_ratio(1150, 1000)`` is
    ``0.1499999999999999``, just under 0.15.
    """
    if budget == 0:
        return 0.0
    return estimated / budget - 1.0


def should_skip_for_cache(
    cache_efficiency: float | None,
    overshoot: float,
    *,
    min_eff: float,
    max_overshoot: float,
    estimated: int,
    hard_cap: int | None,
) -> bool:
    """True when compression should be skipped to keep a hot prompt cache.

    Both comparisons are strict; ``min_eff <= 0`` turns the guard off; an unknown
    efficiency (``None``) never skips; nothing over ``hard_cap`` is ever skipped.
    """
    if min_eff <= 0 or cache_efficiency is None:
        return False
    if hard_cap is not None and estimated > hard_cap:
        return False
    return cache_efficiency > min_eff and overshoot < max_overshoot
