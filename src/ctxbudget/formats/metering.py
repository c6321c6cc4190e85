"""Metering a parsed request by segment: the kernel's ``Meter`` over the content model."""

from __future__ import annotations

from typing import Final

from ctxbudget.formats.request import Request
from ctxbudget.kernel import CONVERSATION, SYSTEM, TOOLS, Meter
from ctxbudget.tokens import (
    DEFAULT_OVERHEADS,
    Overheads,
    TokenCounter,
    default_counter,
    price_message,
    price_tools,
)

__all__ = ["PENDING", "meter_request"]

PENDING: Final = "pending"
"""The host segment of the turn the model is asked to answer now."""


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
