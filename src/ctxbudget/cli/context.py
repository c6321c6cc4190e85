"""``ctxbudget context``: a request's tokens by segment, as Claude Code's ``/context`` shows them.

The numbers come from the library (``parse_request``, ``meter_request``,
``input_cap``, ``ctxbudget.models``); this module only gathers them into a
``Breakdown`` and hands it to the renderer or to JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import click
from rich.console import Console

from ctxbudget.cli.inputs import read_request_body
from ctxbudget.cli.options import (
    counter_option,
    format_option,
    model_of_request,
    model_option,
    resolve_counter,
    resolve_format,
)
from ctxbudget.cli.render import context_view
from ctxbudget.formats import (
    Request,
    input_cap,
    meter_request,
    output_reserve,
    parse_request,
)
from ctxbudget.formats.metering import OUTPUT_LIMIT_KEYS
from ctxbudget.kernel import Pressure, Report
from ctxbudget.models import ModelInfo, PriceTier, input_cost, near_price_boundary, price_tier
from ctxbudget.tokens import TokenCounter

__all__ = [
    "Breakdown",
    "Price",
    "breakdown_of",
    "context",
    "context_alias",
    "ignored_limit_note",
    "load_request",
    "reserve_note",
]


@dataclass(frozen=True, slots=True)
class Price:
    """The input price of a request at its model's tier, and the next price cliff if near."""

    model: str
    usd: Decimal
    tier: PriceTier
    next_tier: PriceTier | None

    def to_json(self) -> dict[str, Any]:
        """As JSON (US dollars as strings, so no digit is lost)."""
        return {
            "model": self.model,
            "input_usd": str(self.usd),
            "tier_above_tokens": self.tier.above_tokens,
            "input_usd_per_mtok": str(self.tier.input_usd_per_mtok),
            "near_tier_above_tokens": self.next_tier.above_tokens if self.next_tier else None,
        }


@dataclass(frozen=True, slots=True)
class Breakdown:
    """What ``context`` shows: the meter's report of one request and what it is held against.

    ``window`` <= 0: unknown, so there is no cap, no free space and the pressure is
    critical (the kernel's rule: unknown must not read as "fits").
    """

    source: str
    format: str
    counter: str
    window: int
    output_reserve: int
    report: Report
    price: Price | None = None
    requested_reserve: int = 0
    """The output limit the body (or the model) asks for; more than ``output_reserve``
    when the window cannot hold it (the input cap is then floored at 1 token)."""

    @property
    def reserve_shrunk(self) -> bool:
        """True when the window is too small for the output limit asked for."""
        return self.window > 0 and self.requested_reserve > self.output_reserve

    @property
    def input_tokens(self) -> int:
        """The estimated input of the request."""
        return self.report.input

    @property
    def cap(self) -> int:
        """The input cap: the window minus the output reserve (0: unknown)."""
        return self.report.cap

    @property
    def free_tokens(self) -> int:
        """Room left under the cap (0 when over it or when the cap is unknown)."""
        return max(0, self.cap - self.input_tokens) if self.cap > 0 else 0

    @property
    def pressure(self) -> Pressure:
        """The pressure level of the input against the cap."""
        return self.report.pressure()

    def to_json(self) -> dict[str, Any]:
        """The breakdown as JSON (what ``--json`` prints)."""
        return {
            "source": self.source,
            "format": self.format,
            "counter": self.counter,
            "window": self.window or None,
            "output_reserve": self.output_reserve,
            "output_reserve_requested": self.requested_reserve or None,
            "input_cap": self.cap or None,
            "input_tokens": self.input_tokens,
            "free_tokens": self.free_tokens if self.cap > 0 else None,
            "pressure": str(self.pressure),
            "segments": [
                {"segment": usage.segment, "tokens": usage.tokens}
                for usage in self.report.segments
                if usage.tokens
            ],
            "price": self.price.to_json() if self.price else None,
        }


def _price(model: ModelInfo | None, tokens: int) -> Price | None:
    if model is None:
        return None
    usd, tier = input_cost(model, tokens), price_tier(model, tokens)
    if usd is None or tier is None:
        return None
    return Price(model.name, usd, tier, near_price_boundary(model, tokens))


def breakdown_of(
    request: Request,
    counter: TokenCounter,
    window: int,
    source: str,
    model: ModelInfo | None = None,
) -> Breakdown:
    """Meter ``request`` and hold it against ``window`` minus its output reserve.

    The reserve is the body's own output limit, else the model's maximum output
    (``formats.input_cap``); the window is honoured either way.
    """
    default_output = (model.max_output_tokens or 0) if model else 0
    cap = input_cap(request, window, default_output=default_output)
    requested = output_reserve(request) or default_output
    reserve = window - cap if window > 0 else output_reserve(request)
    report = meter_request(request, counter).snapshot(cap)
    price = _price(model, report.input)
    return Breakdown(
        source, request.format, counter.name, window, reserve, report, price, requested
    )


def ignored_limit_note(request: Request) -> str | None:
    """What to tell the user when the body sets an output limit that is no positive integer
    (it reserves nothing, and a provider would refuse the body)."""
    for key in OUTPUT_LIMIT_KEYS.get(request.format, ()):
        value = request.body.get(key)
        usable = isinstance(value, int) and not isinstance(value, bool) and value > 0
        if key in request.body and value is not None and not usable:
            return (
                f"the body's {key} ({json.dumps(value)}) is not a positive integer, so no "
                "output is reserved for it; a provider would refuse the body as it is"
            )
    return None


def reserve_note(breakdown: Breakdown) -> str | None:
    """What to tell the user when the window cannot hold the output limit asked for."""
    if not breakdown.reserve_shrunk:
        return None
    return (
        f"the output limit of {breakdown.requested_reserve:,} tokens does not fit in the "
        f"window of {breakdown.window:,}: the input cap is floored at {breakdown.cap:,} token(s) "
        f"and only {breakdown.output_reserve:,} are left for output; give the model's real "
        "window (--window N or --model NAME) or a smaller max_tokens in the body"
    )


def load_request(path: str, format_value: str) -> Request:
    """The request body at ``path`` (``-``: standard input), parsed (detected with auto)."""
    body = read_request_body(path)
    return parse_request(body, resolve_format(body, format_value))


@click.command()
@click.argument("request_path", metavar="REQUEST.json")
@format_option
@model_option
@click.option(
    "--window",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Context window, tokens (instead of --model).",
)
@counter_option
@click.option("--json", "as_json", is_flag=True, help="Print the breakdown as JSON.")
def context(
    request_path: str,
    format_value: str,
    model_name: str | None,
    window: int | None,
    counter_spec: str | None,
    as_json: bool,
) -> None:
    """Show a request's tokens by segment, free space, output reserve, pressure and price."""
    if model_name and window:
        raise click.UsageError("give --model NAME or --window N, not both")
    request = load_request(request_path, format_value)
    # --window and --model exclude each other (above): with a window there is no model.
    model, model_note = (None, None) if window else model_of_request(request.body, model_name)
    if model is not None and model.context_window is None:
        click.echo(f"note: the window of {model.name} is not known; give --window N", err=True)
    size = window or (model.context_window or 0 if model else 0)
    counter = resolve_counter(counter_spec, model)
    breakdown = breakdown_of(request, counter, size, request_path, model)
    for note in (model_note, ignored_limit_note(request), reserve_note(breakdown)):
        if note is not None:
            click.echo(f"note: {note}", err=True)
    if as_json:
        click.echo(json.dumps(breakdown.to_json(), ensure_ascii=False, indent=2))
    else:
        Console().print(context_view(breakdown))


context_alias = click.Command(
    "meter",
    callback=context.callback,
    params=context.params,
    help="Alias of `context` (its former name).",
    hidden=True,
)
