"""``ctxbudget session``: import transcripts into the ledger, list, measure, chart, compact."""

from __future__ import annotations

import click
from rich.console import Console

from ctxbudget.cli.history import call_history
from ctxbudget.cli.importing import import_command
from ctxbudget.cli.options import counter_option, ledger_option
from ctxbudget.cli.render import history_chart, measurement_view
from ctxbudget.errors import ConfigError
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.meter import DEFAULT_CONTEXT_WINDOW, TokenMeter
from ctxbudget.tokens import TokenCounter, get_counter

__all__ = ["session"]

_window_option = click.option(
    "--window",
    type=click.IntRange(min=1),
    default=DEFAULT_CONTEXT_WINDOW,
    show_default=True,
    help="Context window the pressure is measured against.",
)


def _meter_counter(spec: str | None) -> TokenCounter | None:
    """The counter a spec names; ``None`` keeps the meter's own (usage-calibrated) default."""
    return get_counter(spec) if spec else None


def _known_session(store: Ledger, session_id: str) -> None:
    if store.revision(session_id) == 0:
        raise ConfigError(
            f"the ledger holds no session {session_id!r}; `ctxbudget session list` shows "
            "the sessions it has"
        )


@click.group()
def session() -> None:
    """Sessions in the ledger: import transcripts, list, measure, history, compact."""


session.add_command(import_command)


@session.command("list")
@ledger_option
def list_sessions(ledger_url: str) -> None:
    """List the sessions of a ledger with their event counts."""
    with open_ledger(ledger_url) as store:
        for session_id in store.sessions():
            click.echo(f"{session_id}\t{store.revision(session_id)} events")


@session.command("measure")
@click.argument("session_id", metavar="ID")
@ledger_option
@_window_option
@counter_option
def measure(session_id: str, ledger_url: str, window: int, counter_spec: str | None) -> None:
    """Replay a session into the tokens its next request takes, and its pressure."""
    with open_ledger(ledger_url) as store:
        _known_session(store, session_id)
        meter = TokenMeter(store, counter=_meter_counter(counter_spec), context_window=window)
        result = meter.measure(session_id)
    title = f"session {session_id!r}, counter {meter.counter.name}, window {window:,}"
    Console().print(measurement_view(result, title))


@session.command("history")
@click.argument("session_id", metavar="ID")
@ledger_option
@_window_option
@counter_option
def history(session_id: str, ledger_url: str, window: int, counter_spec: str | None) -> None:
    """Chart the pressure after each call, the meter's prediction beside the reported usage."""
    with open_ledger(ledger_url) as store:
        _known_session(store, session_id)
        events = store.events(session_id)
    points = call_history(events, _meter_counter(counter_spec), window)
    title = f"session {session_id!r}: {len(points)} calls, window {window:,}"
    Console().print(history_chart(points, window, title))
