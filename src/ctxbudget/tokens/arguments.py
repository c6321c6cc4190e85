"""A counter argument of a public entry point, as a ``TokenCounter`` or a clear error.

Entry points that take a counter (``enforce_budget``, ``TokenMeter``) accept either
a ``TokenCounter`` or a spec string (``"chars4"``, ``"calibrated:claude"``), which
is resolved with ``get_counter`` (``UnknownCounterError`` when it names nothing).
Anything else is a ``ConfigError`` naming the argument, not an ``AttributeError``
raised deep inside the first count.
"""

from __future__ import annotations

from ctxbudget.errors import ConfigError
from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.registry import get_counter

__all__ = ["counter_argument"]


def counter_argument(value: object, where: str) -> TokenCounter:
    """``value`` as a counter: itself if it is one, the counter it names if a spec string."""
    if isinstance(value, str):
        return get_counter(value)
    if isinstance(value, TokenCounter) and callable(getattr(value, "count", None)):
        return value
    raise ConfigError(
        f"{where}: counter is a {type(value).__name__}, not a token counter; pass a "
        "TokenCounter (e.g. ctxbudget.tokens.default_counter()) or a spec string such as "
        "'chars4' or 'calibrated:claude' (see ctxbudget.tokens.get_counter)"
    )
