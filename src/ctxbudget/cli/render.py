"""Rich renderables for the command line; presentation only, numbers come in computed."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ctxbudget.kernel import CRITICAL_AT_PCT, TIGHT_AT_PCT, Pressure, classify
from ctxbudget.meter import CallPrediction, Measurement

if TYPE_CHECKING:
    from ctxbudget.cli.context import Breakdown, Price

__all__ = [
    "BAR_WIDTH",
    "HISTORY_BAR",
    "bar",
    "context_view",
    "history_chart",
    "measurement_view",
    "pressure_text",
]

BAR_WIDTH = 40
"""Characters of a full bar (the whole window)."""
HISTORY_BAR = 16
"""Characters of a full bar in the history chart (one row per call)."""

_SEGMENT_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "bright_red", "bright_cyan")
_PRESSURE_STYLES = {Pressure.NORMAL: "green", Pressure.TIGHT: "yellow", Pressure.CRITICAL: "red"}


def _cells(tokens: int, whole: int, width: int = BAR_WIDTH) -> int:
    """Bar cells for ``tokens`` of ``whole``: at least one for any non-zero part."""
    if whole <= 0 or tokens <= 0:
        return 0
    return max(1, min(width, round(width * tokens / whole)))


def bar(tokens: int, whole: int, style: str, width: int = BAR_WIDTH) -> Text:
    """A bar of ``tokens`` out of ``whole`` (at most ``width`` cells)."""
    return Text("█" * _cells(tokens, whole, width), style=style)


def pressure_text(pressure: Pressure) -> Text:
    """The pressure level, coloured by severity."""
    return Text(str(pressure), style=f"bold {_PRESSURE_STYLES[pressure]}")


def _share(tokens: int, whole: int) -> str:
    return f"{100 * tokens / whole:.1f}%" if whole > 0 else "-"


def context_view(breakdown: Breakdown) -> RenderableType:
    """The ``/context`` view: a stacked bar, one row per segment, free space and reserve."""
    window = breakdown.window if breakdown.window > 0 else breakdown.input_tokens
    segments = [u for u in breakdown.report.segments if u.tokens]
    styles = {u.segment: _SEGMENT_STYLES[i % len(_SEGMENT_STYLES)] for i, u in enumerate(segments)}
    table = Table(box=None, padding=(0, 1), show_header=True, header_style="bold")
    for column, justify in (("", "left"), ("tokens", "right"), ("share", "right"), ("", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for usage in segments:
        style = styles[usage.segment]
        table.add_row(
            Text(f"■ {usage.segment}", style=style),
            f"{usage.tokens:,}",
            _share(usage.tokens, window),
            bar(usage.tokens, window, style),
        )
    if breakdown.window > 0:
        table.add_row(
            "□ free space", f"{breakdown.free_tokens:,}", _share(breakdown.free_tokens, window), ""
        )
        reserve = breakdown.output_reserve
        if breakdown.reserve_shrunk:
            asked = f"{breakdown.requested_reserve:,} asked for; the window leaves only this"
            table.add_row(
                "▒ output reserve",
                f"{reserve:,}",
                _share(reserve, window),
                Text(asked, "bold red"),
            )
        elif reserve:
            table.add_row("▒ output reserve", f"{reserve:,}", _share(reserve, window), "")
        else:
            table.add_row("▒ output reserve", "-", "", Text("the body sets no output limit", "dim"))
    lines: list[RenderableType] = [_title(breakdown), _stacked_bar(breakdown, styles), table]
    lines.append(_pressure_line(breakdown))
    if breakdown.price is not None:
        lines.append(_price_line(breakdown.price))
    return Group(*lines)


def _title(breakdown: Breakdown) -> Text:
    title = Text("Context usage", style="bold")
    title.append(f"  {breakdown.source} · {breakdown.format} · counter {breakdown.counter}", "dim")
    return title


def _stacked_bar(breakdown: Breakdown, styles: dict[str, str]) -> Text:
    window = breakdown.window
    line = Text()
    if window <= 0:
        line.append(f"{breakdown.input_tokens:,} tokens; window unknown (give --window or --model)")
        return line
    # Cumulative rounding: the cells add up to the input's share of the window exactly,
    # however many small segments there are.
    used, edge = 0, 0
    for usage in breakdown.report.segments:
        used += usage.tokens
        end = min(BAR_WIDTH, round(BAR_WIDTH * used / window))
        line.append("█" * (end - edge), style=styles.get(usage.segment, ""))
        edge = end
    reserve = min(round(BAR_WIDTH * breakdown.output_reserve / window), BAR_WIDTH - edge)
    line.append("░" * max(0, BAR_WIDTH - edge - reserve), style="dim")
    line.append("▒" * max(0, reserve), style="dim")
    line.append(
        f"  {breakdown.input_tokens:,} / {window:,} tokens "
        f"({_share(breakdown.input_tokens, window)})"
    )
    return line


def _pressure_line(breakdown: Breakdown) -> Text:
    line = Text("pressure ")
    line.append_text(pressure_text(breakdown.pressure))
    if breakdown.cap > 0:
        line.append(
            f": {_share(breakdown.input_tokens, breakdown.cap)} of the input cap "
            f"{breakdown.cap:,} (window - output reserve); tight at {TIGHT_AT_PCT}%, "
            f"critical at {CRITICAL_AT_PCT}%"
        )
    else:
        line.append(": no window known, so nothing says it fits")
    if breakdown.report.display().overflow:
        over = breakdown.input_tokens - breakdown.cap
        line.append(f"; over the cap by {over:,} tokens", style="bold red")
    return line


def _price_line(price: Price) -> Text:
    rate = price.tier.input_usd_per_mtok
    line = Text(f"price ${price.usd:.4f} of input at ${rate}/Mtok ({price.model})")
    upcoming = price.next_tier
    if upcoming is not None:
        line.append(
            f"; near the price cliff: above {upcoming.above_tokens:,} input tokens the whole "
            f"request costs ${upcoming.input_usd_per_mtok}/Mtok",
            style="bold yellow",
        )
    return line


def measurement_view(m: Measurement, title: str) -> RenderableType:
    """One measurement, one line per figure, with what each figure means."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    baseline = {
        "usage": "the provider's last reported usage",
        "estimated": "the meter's own estimate; no usable usage yet",
        "none": "nothing logged yet",
    }[m.baseline.kind]
    next_request = Text(f"{m.total_tokens:,} tokens, {_share(m.total_tokens, m.capacity)} of ")
    next_request.append(f"{m.capacity:,}")
    grid.add_row("log revision", f"{m.log_revision:,} events folded")
    grid.add_row("baseline", f"{m.baseline.kind} {m.baseline.tokens:,}: {baseline}")
    grid.add_row("delta", f"{m.surface_delta_tokens:+d} tokens priced since the baseline")
    if m.delta_scale != 1.0:
        grid.add_row("delta scale", f"x{m.delta_scale:.3f} (learned from this session's usage)")
    grid.add_row("next request", next_request)
    grid.add_row("pressure", pressure_text(m.pressure))
    grid.add_row("surface", f"{len(m.nodes):,} messages, {m.surface_tokens:,} tokens estimated")
    return Group(Text(title, style="bold"), grid)


def _signed_error(call: CallPrediction) -> float | None:
    reported = call.reported_tokens
    if not reported or not call.anchored:
        return None
    return 100 * (call.predicted_tokens - reported) / reported


def history_chart(calls: Sequence[CallPrediction], window: int, title: str) -> RenderableType:
    """Pressure after each call as a bar of the window, the report beside the prediction.

    The bar is the call's reported prompt plus its output (the prediction where it
    reported nothing), coloured by its pressure level; the error is shown for calls
    whose prediction stood on an earlier call's usage (what the meter's accuracy covers).
    """
    table = Table(title=title, box=None, padding=(0, 1), header_style="bold")
    for column in ("call", "seq", "predicted", "reported", "error", "after"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    table.add_column("pressure after the call", no_wrap=True)
    for number, call in enumerate(calls, 1):
        reported = call.reported_tokens
        after = call.usage.total_tokens if call.usage is not None else call.predicted_tokens
        level = classify(after, window)
        chart = bar(after, window, _PRESSURE_STYLES[level], HISTORY_BAR)
        chart.append(f" {level}", style="dim")
        error = _signed_error(call)
        table.add_row(
            str(number),
            str(call.seq),
            f"{call.predicted_tokens:,}",
            f"{reported:,}" if reported is not None else "-",
            f"{error:+.1f}%" if error is not None else "-",
            _share(after, window),
            chart,
        )
    return Group(table, _error_summary(calls))


def _error_summary(calls: Sequence[CallPrediction]) -> Text:
    errors = sorted(abs(e) for call in calls if (e := _signed_error(call)) is not None)
    if not errors:
        return Text("no call has both a usage anchor before it and its own usage: nothing to score")
    p95 = errors[min(len(errors) - 1, math.ceil(0.95 * len(errors)) - 1)]
    return Text(
        f"prediction vs reported prompt over {len(errors)} anchored calls: "
        f"mean |error| {statistics.fmean(errors):.2f}%, p95 {p95:.2f}%, max {errors[-1]:.2f}%"
    )
