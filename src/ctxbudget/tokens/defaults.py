"""The counter used when the caller names none."""

from __future__ import annotations

import functools

from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.caching import CachingCounter
from ctxbudget.tokens.calibrated import CalibratedCounter

__all__ = ["DEFAULT_CACHE_SIZE", "central_counter", "default_counter"]

DEFAULT_CACHE_SIZE = 4096
"""Distinct texts the default counter remembers."""


@functools.cache
def default_counter() -> TokenCounter:
    """The library's default counter: the conservative ``generic`` calibrated profile,
    cached by content. One shared instance (it is thread-safe)."""
    return CachingCounter(CalibratedCounter("generic"), DEFAULT_CACHE_SIZE)


@functools.cache
def central_counter() -> TokenCounter:
    """The ``central`` calibrated profile, cached by content; one shared instance.

    The middle of the known tokenizers rather than near the highest: the unbiased guess
    the replay meter predicts a provider's figure with. Budgets are guarded with the
    conservative ``default_counter()``.
    """
    return CachingCounter(CalibratedCounter("central"), DEFAULT_CACHE_SIZE)
