"""The counter used when the caller names none."""

from __future__ import annotations

import functools

from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.caching import CachingCounter
from ctxbudget.tokens.calibrated import CalibratedCounter

__all__ = ["DEFAULT_CACHE_SIZE", "default_counter"]

DEFAULT_CACHE_SIZE = 4096
"""Distinct texts the default counter remembers."""


@functools.cache
def default_counter() -> TokenCounter:
    """The library's default counter: the conservative ``generic`` calibrated profile,
    cached by content. One shared instance (it is thread-safe)."""
    return CachingCounter(CalibratedCounter("generic"), DEFAULT_CACHE_SIZE)
