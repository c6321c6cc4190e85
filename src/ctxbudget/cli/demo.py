"""``ctxbudget demo``: the main job on data the project ships.

It meters a bundled agent request by segment and shows its pressure, enforces a
budget on it (and shows a refusal), then replays a session from the embedded
SQLite ledger, anchored on the provider usage recorded in it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from ctxbudget.cli.render import measurement_table, segment_table
from ctxbudget.demo.session import demo_session_events, next_user_turn
from ctxbudget.enforce import BudgetConfig, BudgetEvent, enforce_budget
from ctxbudget.errors import BudgetExceeded
from ctxbudget.formats import parse_request
from ctxbudget.formats.metering import meter_request
from ctxbudget.kernel import max_input
from ctxbudget.ledger import DEFAULT_SQLITE_PATH, open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__all__ = ["demo", "load_demo_request"]

DEMO_WINDOW = 4_000
"""A small window, so the bundled request shows some pressure."""


def load_demo_request() -> dict[str, Any]:
    """The request body the demo ships (written by this project)."""
    text = resources.files("ctxbudget.demo").joinpath("request.json").read_text("utf-8")
    body: dict[str, Any] = json.loads(text)
    return body


@click.command()
@click.option("--window", default=DEMO_WINDOW, show_default=True, help="Context window in tokens.")
@click.option(
    "--ledger",
    "ledger_url",
    default=f"sqlite:///{DEFAULT_SQLITE_PATH}",
    show_default=True,
    help="Ledger URL for the replay part.",
)
@click.option("--counter", "counter_spec", default=None, help="Counter spec (default: calibrated).")
def demo(window: int, ledger_url: str, counter_spec: str | None) -> None:
    """Meter, enforce and replay a bundled agent request and session."""
    console = Console()
    body = load_demo_request()
    counter = get_counter(counter_spec) if counter_spec else default_counter()
    estimate = _show_meter(console, body, counter, window)
    _show_enforcement(console, body, counter, estimate)
    _show_replay(
        console, body, get_counter(counter_spec) if counter_spec else None, window, ledger_url
    )


def _show_meter(console: Console, body: dict[str, Any], counter: TokenCounter, window: int) -> int:
    console.rule("1. Meter a request by segment")
    reserve = int(body.get("max_tokens", 0))
    cap = max_input(window, 0, reserve)
    report = meter_request(parse_request(body, "openai"), counter).snapshot(cap)
    title = f"bundled {body['model']} request, counter {counter.name}"
    console.print(segment_table(report, title))
    console.print(
        f"window {window} - output reserve {reserve} = input cap {cap}; "
        f"pressure [bold]{report.pressure()}[/bold]"
    )
    return report.input


def _show_enforcement(
    console: Console, body: dict[str, Any], counter: TokenCounter, estimate: int
) -> None:
    console.rule("2. Enforce a budget on it")
    events = _EventList()
    budget = estimate * 3 // 4
    config = BudgetConfig(max_input_tokens=budget)
    result = enforce_budget(body, config, format="openai", counter=counter, sink=events)
    stages = ", ".join(result.info.stages) or "none"
    console.print(
        f"budget {budget}: {result.estimate_before} -> {result.estimate_after} tokens, "
        f"stages applied: {stages}; the caller's body is unchanged: "
        f"{body == load_demo_request()}"
    )
    tiny = estimate // 10
    try:
        enforce_budget(
            body,
            replace(config, max_input_tokens=tiny),
            format="openai",
            counter=counter,
            sink=events,
        )
    except BudgetExceeded as refusal:
        console.print(f"budget {tiny}: refused ({refusal.code}): {refusal}", markup=False)
    for event in events.seen:
        fields = ", ".join(f"{k}={v}" for k, v in event.fields.items() if k != "message")
        console.print(f"  event {event.name}: {fields}", markup=False)


class _EventList:
    """Keeps the pipeline's events to print them after each step."""

    def __init__(self) -> None:
        self.seen: list[BudgetEvent] = []

    def emit(self, event: BudgetEvent) -> None:
        self.seen.append(event)


def _show_replay(
    console: Console, body: dict[str, Any], counter: TokenCounter | None, window: int, url: str
) -> None:
    console.rule("3. Replay a session from the ledger")
    with open_ledger(url) as ledger:
        session = f"demo-{sum(s.startswith('demo-') for s in ledger.sessions()) + 1}"
        ledger.append_many(session, demo_session_events(body), expected_revision=0)
        meter = TokenMeter(ledger, counter=counter, context_window=window)
        before = meter.measure(session)
        ledger.append_many(
            session, next_user_turn("Now run the whole suite, please."), before.log_revision
        )
        after = meter.measure(session)
        table = Table(title=f"session {session!r} in {url}")
        measurement_table(table, ("after 2 model calls", before), ("after a new user turn", after))
        console.print(table)
        console.print(
            "the meter anchors on the provider's last reported usage and prices only "
            f"what came after it: +{after.surface_delta_tokens} tokens for the new turn"
        )
