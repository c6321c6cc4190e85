"""The counter used when the caller names none."""

from __future__ import annotations

from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.heuristics import CJKCounter

__all__ = ["default_counter"]


def default_counter() -> TokenCounter:
    """The library's default counter."""
    return CJKCounter()
