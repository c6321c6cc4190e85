"""Rich tables for the command line; presentation only."""

from __future__ import annotations

from rich.table import Table

from ctxbudget.kernel import Report
from ctxbudget.meter import Measurement

__all__ = ["measurement_table", "segment_table"]


def segment_table(report: Report, title: str) -> Table:
    """Tokens per segment, the total and the cap."""
    table = Table(title=title)
    table.add_column("segment")
    table.add_column("tokens", justify="right")
    table.add_column("share", justify="right")
    for usage in report.segments:
        share = f"{100 * usage.tokens / report.input:.0f}%" if report.input else "-"
        table.add_row(usage.segment, str(usage.tokens), share)
    shown = report.display()
    cap = str(report.cap) if report.cap > 0 else "unknown"
    table.add_row("[bold]input[/bold]", f"[bold]{report.input}[/bold]", f"cap {cap}")
    if shown.overflow:
        table.add_row("[red]over the cap by[/red]", f"[red]{report.input - report.cap}[/red]", "")
    return table


def measurement_table(table: Table, *rows: tuple[str, Measurement]) -> Table:
    """One row per labelled measurement."""
    for column in ("when", "log revision", "baseline", "delta", "total", "capacity", "pressure"):
        table.add_column(column, justify="left" if column == "when" else "right")
    for label, m in rows:
        table.add_row(
            label,
            str(m.log_revision),
            f"{m.baseline.kind} {m.baseline.tokens}",
            f"{m.surface_delta_tokens:+d}",
            str(m.total_tokens),
            str(m.capacity),
            str(m.pressure),
        )
    return table
