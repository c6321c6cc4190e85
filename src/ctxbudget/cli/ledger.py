"""``ctxbudget ledger``: the raw event log of a session (dump, append, check events)."""

from __future__ import annotations

import json

import click

from ctxbudget.cli.exit_codes import ExitCode
from ctxbudget.cli.inputs import read_events
from ctxbudget.cli.options import ledger_option
from ctxbudget.cli.sessions import list_sessions, measure, require_session
from ctxbudget.ledger import open_ledger
from ctxbudget.meter import check_session

__all__ = ["ledger", "measure_alias"]


@click.group()
def ledger() -> None:
    """Look into a session ledger's raw events, or append some."""


ledger.add_command(
    click.Command(
        "sessions",
        callback=list_sessions.callback,
        params=list_sessions.params,
        help="Alias of `session list`.",
    )
)


@ledger.command("events")
@click.argument("session_id", metavar="SESSION")
@ledger_option
@click.option(
    "--start",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="SEQ",
    help="First seq to print.",
)
def events(session_id: str, ledger_url: str, start: int) -> None:
    """Print a session's events as JSON lines."""
    with open_ledger(ledger_url) as store:
        require_session(store, session_id)
        for event in store.events(session_id, start):
            click.echo(json.dumps(event.to_json(), ensure_ascii=False))


@ledger.command("append")
@click.argument("session_id", metavar="SESSION")
@click.argument("events_path", metavar="EVENTS")
@ledger_option
@click.option(
    "--expected-revision",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Append only if the session is at this revision (else conflict, nothing written).",
)
def append(
    session_id: str, events_path: str, ledger_url: str, expected_revision: int | None
) -> None:
    """Append a JSON list of events (or JSON lines) to a session, in one transaction."""
    batch = read_events(events_path)
    with open_ledger(ledger_url) as store:
        seqs = store.append_many(session_id, batch, expected_revision)
        revision = store.revision(session_id)
    click.echo(f"appended {len(seqs)} events to {session_id!r}; revision {revision}")


@ledger.command("check")
@click.argument("session_id", metavar="SESSION")
@ledger_option
@click.pass_context
def check(ctx: click.Context, session_id: str, ledger_url: str) -> None:
    """Report every event of a session the meter cannot fold (exit 1 if any)."""
    with open_ledger(ledger_url) as store:
        require_session(store, session_id)
        report = check_session(store, session_id)
    for problem in report.problems:
        click.echo(f"seq {problem.seq}\t{problem.type}\t{problem.rule}\t{problem.detail}")
    verdict = "every event folds" if report.ok else f"{len(report.problems)} cannot be folded"
    click.echo(f"session {session_id!r}: {report.events} events, {verdict}")
    if not report.ok:
        ctx.exit(int(ExitCode.ERROR))


measure_alias = click.Command(
    "measure",
    callback=measure.callback,
    params=measure.params,
    help="Alias of `session measure`.",
    hidden=True,
)
