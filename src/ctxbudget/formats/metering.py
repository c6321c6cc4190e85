"""Metering a parsed request by segment: the kernel's ``Meter`` over the content model."""

from __future__ import annotations

from typing import Final

from ctxbudget.formats.request import Request
from ctxbudget.kernel import CONVERSATION, SYSTEM, TOOLS, Meter, max_input
from ctxbudget.tokens import (
    DEFAULT_OVERHEADS,
    Overheads,
    TokenCounter,
    default_counter,
    price_message,
    price_tools,
)

__all__ = ["OUTPUT_LIMIT_KEYS", "PENDING", "input_cap", "meter_request", "output_reserve"]

PENDING: Final = "pending"
"""The host segment of the turn the model is asked to answer now."""

OUTPUT_LIMIT_KEYS: Final = {
    "openai": ("max_completion_tokens", "max_tokens"),
    "anthropic": ("max_tokens",),
    "openai-responses": ("max_output_tokens",),
}
"""Where each format's body says how many tokens the answer may take."""


def output_reserve(request: Request) -> int:
    """The output tokens the body reserves (``max_tokens`` and the like); 0 when none."""
    for key in OUTPUT_LIMIT_KEYS.get(request.format, ()):
        value = request.body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def input_cap(request: Request, window: int, *, default_output: int = 0) -> int:
    """The most input tokens ``request`` may take in a model with a ``window``-token context.

    The body's own output limit is reserved; when it sets none, ``default_output``
    (a model's maximum output, when known) is; with neither, the whole window is the
    cap. A known window always gives a cap (0 only when ``window`` is 0: unknown).
    """
    if window <= 0:
        return 0
    reserve = output_reserve(request) or default_output
    if reserve <= 0:
        return window
    return max_input(window, 0, reserve)


def meter_request(
    request: Request, counter: TokenCounter | None = None, overheads: Overheads = DEFAULT_OVERHEADS
) -> Meter:
    """A ``Meter`` holding the request's tokens per segment.

    System, tools and conversation are canonical segments; the pending turn is
    metered as the host segment ``"pending"``, so it shows on its own line.
    """
    counter = counter if counter is not None else default_counter()
    meter = Meter()
    for segment, turns in ((SYSTEM, request.system), (CONVERSATION, request.conversation)):
        meter.add(segment, sum(price_message(t.message, counter, overheads) for t in turns))
    meter.add(TOOLS, price_tools(request.tools, counter, overheads))
    meter.add(PENDING, sum(price_message(t.message, counter, overheads) for t in request.pending))
    return meter
