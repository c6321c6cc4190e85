"""``ctxbudget context``: a request's tokens by segment, as Claude Code's ``/context`` shows them.

The numbers come from the library (``parse_request``, ``meter_request``,
``max_input``); this module only gathers them into a ``Breakdown`` and hands it
to the renderer or to JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click
from rich.console import Console

from ctxbudget.cli.inputs import read_json
from ctxbudget.cli.options import AUTO_FORMAT, counter_option, format_option, resolve_counter
from ctxbudget.cli.render import context_view
from ctxbudget.errors import FormatError
from ctxbudget.formats import Request, meter_request, parse_request
from ctxbudget.kernel import Pressure, Report, max_input
from ctxbudget.tokens import TokenCounter

__all__ = ["Breakdown", "breakdown_of", "context", "context_alias", "reserved_output"]

_OUTPUT_LIMIT_KEYS = ("max_completion_tokens", "max_output_tokens", "max_tokens")
"""Where the three formats put the output limit (Chat, Responses, Chat/Messages)."""


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
            "input_cap": self.cap or None,
            "input_tokens": self.input_tokens,
            "free_tokens": self.free_tokens if self.cap > 0 else None,
            "pressure": str(self.pressure),
            "segments": [
                {"segment": usage.segment, "tokens": usage.tokens}
                for usage in self.report.segments
                if usage.tokens
            ],
        }


def reserved_output(body: Mapping[str, Any]) -> int:
    """The output a request body reserves (its output limit), 0 when it sets none."""
    for key in _OUTPUT_LIMIT_KEYS:
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def breakdown_of(
    body: Mapping[str, Any], request: Request, counter: TokenCounter, window: int, source: str
) -> Breakdown:
    """Meter ``request`` and hold it against ``window`` minus the body's output reserve."""
    reserve = reserved_output(body)
    # The window is honoured with or without an output limit in the body: with none,
    # the whole window is the cap (max_input treats a base of `window` as the host cap).
    cap = max_input(window, window, reserve) if window > 0 else 0
    report = meter_request(request, counter).snapshot(cap)
    return Breakdown(source, request.format, counter.name, window, reserve, report)


def _parse(body: Any, format_name: str, source: str) -> Request:
    if not isinstance(body, Mapping):
        raise FormatError(f"{source!r} holds a JSON {type(body).__name__}, not a request object")
    # TODO(enforce merge): parse_request(body, None) detects the format.
    return parse_request(body, "openai" if format_name == AUTO_FORMAT else format_name)


@click.command()
@click.argument("request_path", metavar="REQUEST.json")
@format_option
@click.option("--window", type=click.IntRange(min=1), default=None, help="Context window, tokens.")
@counter_option
@click.option("--json", "as_json", is_flag=True, help="Print the breakdown as JSON.")
def context(
    request_path: str,
    format_name: str,
    window: int | None,
    counter_spec: str | None,
    as_json: bool,
) -> None:
    """Show a request's tokens by segment, free space, output reserve and pressure."""
    body = read_json(request_path)
    request = _parse(body, format_name, request_path)
    breakdown = breakdown_of(
        body, request, resolve_counter(counter_spec), window or 0, request_path
    )
    if as_json:
        click.echo(json.dumps(breakdown.to_json(), ensure_ascii=False, indent=2))
    else:
        Console().print(context_view(breakdown))


context_alias = click.Command(
    "meter",
    callback=context.callback,
    params=context.params,
    help="Alias of `context` (its former name).",
)
