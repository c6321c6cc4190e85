"""``ctxbudget demo``: meter a bundled agent request by segment and show its pressure."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from ctxbudget.content import message_from_json
from ctxbudget.kernel import CONVERSATION, SYSTEM, TOOLS, Meter, classify, max_input
from ctxbudget.tokens import CJKCounter, price_message, price_tools

DEMO_WINDOW = 16_000
"""A small window, so the bundled request shows some pressure."""


def load_demo_request() -> dict[str, Any]:
    """The request body the demo ships (written by this project)."""
    text = resources.files("ctxbudget.demo").joinpath("request.json").read_text("utf-8")
    body: dict[str, Any] = json.loads(text)
    return body


@click.command()
@click.option("--window", default=DEMO_WINDOW, show_default=True, help="Context window in tokens.")
def demo(window: int) -> None:
    """Meter a bundled agent request by segment and show its pressure."""
    console = Console()
    body = load_demo_request()
    counter = CJKCounter()
    meter = Meter()
    for raw in body["messages"]:
        segment = SYSTEM if raw["role"] == "system" else CONVERSATION
        meter.add(segment, price_message(message_from_json(raw), counter))
    meter.add(TOOLS, price_tools(body.get("tools", []), counter))
    cap = max_input(window, 0, int(body.get("max_tokens", 0)))
    report = meter.snapshot(cap)

    table = Table(title=f"Bundled request ({body['model']}), counter {counter.name}")
    table.add_column("segment")
    table.add_column("tokens", justify="right")
    for usage in report.segments:
        table.add_row(usage.segment, str(usage.tokens))
    table.add_row("[bold]input[/bold]", f"[bold]{report.input}[/bold]")
    console.print(table)
    shown = report.display()
    console.print(
        f"window {window}, output reserve {body.get('max_tokens', 0)}, input cap {cap}: "
        f"{shown.used}/{cap} used, pressure [bold]{classify(report.input, cap)}[/bold]"
    )
