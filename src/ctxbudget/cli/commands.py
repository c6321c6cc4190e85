"""The everyday commands: count, meter, enforce, and the ledger's sessions, events and measure."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import get_args

import click
from rich.console import Console
from rich.table import Table

from ctxbudget.archives import FileArchive
from ctxbudget.cli.inputs import read_events, read_json, read_text, reserved_output
from ctxbudget.cli.render import measurement_table, segment_table
from ctxbudget.enforce import (
    BUDGET_EXCEEDED,
    BudgetConfig,
    BudgetEvent,
    enforce_budget,
    load_budget_config,
)
from ctxbudget.formats import FormatName, parse_request
from ctxbudget.formats.metering import meter_request
from ctxbudget.kernel import max_input
from ctxbudget.ledger import DEFAULT_SQLITE_PATH, open_ledger
from ctxbudget.meter import TokenMeter, check_session
from ctxbudget.summaries import render_transcript
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__all__ = ["archive_show", "count", "enforce_command", "ledger", "measure", "meter"]

_FORMATS = click.Choice(list(get_args(FormatName)))
_LEDGER_URL = f"sqlite:///{DEFAULT_SQLITE_PATH}"


def _counter(spec: str | None) -> TokenCounter:
    return get_counter(spec) if spec else default_counter()


def _format(value: str) -> FormatName:
    if value == "anthropic":
        return "anthropic"
    return "openai"


@click.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--counter",
    "specs",
    multiple=True,
    help="Counter spec, repeatable: chars4, cjk, calibrated:NAME, tiktoken:ENC, auto:MODEL.",
)
def count(paths: tuple[str, ...], specs: tuple[str, ...]) -> None:
    """Count the tokens of files (or standard input); prints tab-separated columns."""
    counters = [_counter(s) for s in specs] or [default_counter()]
    click.echo("\t".join(["input", "chars", *(c.name for c in counters)]))
    for path in paths or ("-",):
        text = read_text(path)
        click.echo("\t".join([path, str(len(text)), *(str(c.count(text)) for c in counters)]))


@click.command()
@click.argument("body_path", metavar="BODY")
@click.option("--format", "format_", type=_FORMATS, default="openai", show_default=True)
@click.option("--window", type=int, default=0, help="Context window; 0: unknown.")
@click.option("--counter", "spec", default=None, help="Counter spec (default: calibrated).")
def meter(body_path: str, format_: str, window: int, spec: str | None) -> None:
    """Show a request body's tokens by segment and its pressure."""
    body = read_json(body_path)
    counter = _counter(spec)
    cap = max_input(window, 0, reserved_output(body))
    report = meter_request(parse_request(body, _format(format_)), counter).snapshot(cap)
    console = Console()
    console.print(segment_table(report, f"{body_path} ({format_}), counter {counter.name}"))
    console.print(f"pressure: {report.pressure()}")


@click.command("enforce")
@click.argument("body_path", metavar="BODY")
@click.option("--format", "format_", type=_FORMATS, default="openai", show_default=True)
@click.option("--config", "config_path", default=None, help="Agent TOML file with [budget].")
@click.option("--budget", type=int, default=None, help="max_input_tokens (overrides --config).")
@click.option("--cost-pressure", is_flag=True, help="Trim harder (200-character threshold).")
@click.option("--counter", "spec", default=None, help="Counter spec (default: calibrated).")
@click.option("--archive", "archive_dir", default=None, help="Keep stubbed originals in DIR.")
def enforce_command(
    body_path: str,
    format_: str,
    config_path: str | None,
    budget: int | None,
    cost_pressure: bool,
    spec: str | None,
    archive_dir: str | None,
) -> None:
    """Hold a request body to a budget; print the body to send, or refuse (exit 2)."""
    body = read_json(body_path)
    sink = _StderrSink()
    config = load_budget_config(config_path, sink=sink) if config_path else BudgetConfig()
    if budget is not None:
        config = replace(config, max_input_tokens=budget)
    result = enforce_budget(
        body,
        config,
        format=_format(format_),
        counter=_counter(spec),
        cost_pressure=cost_pressure,
        sink=sink,
        archive=FileArchive(archive_dir) if archive_dir else None,
    )
    stages = ",".join(result.info.stages) or "none"
    click.echo(
        f"{result.estimate_before} -> {result.estimate_after} tokens "
        f"(budget {config.max_input_tokens or 'off'}; stages: {stages})",
        err=True,
    )
    click.echo(json.dumps(result.body, ensure_ascii=False, indent=1))


class _StderrSink:
    """Shows pipeline events on standard error; a refusal is shown once, as the error."""

    def emit(self, event: BudgetEvent) -> None:
        if event.name != BUDGET_EXCEEDED:
            click.echo(f"{event.name}: {event.message}", err=True)


@click.command("archive")
@click.argument("handle")
@click.option("--dir", "archive_dir", required=True, help="The directory given to enforce.")
def archive_show(handle: str, archive_dir: str) -> None:
    """Print an original that enforcement archived, by the handle in its stub."""
    original = FileArchive(archive_dir).retrieve(handle)
    click.echo(render_transcript(original.messages))


@click.group()
def ledger() -> None:
    """Look into a session ledger."""


@ledger.command("sessions")
@click.option("--ledger", "url", default=_LEDGER_URL, show_default=True)
def sessions(url: str) -> None:
    """List the sessions in a ledger."""
    with open_ledger(url) as store:
        for session in store.sessions():
            click.echo(f"{session}\t{store.revision(session)} events")


@ledger.command("events")
@click.argument("session")
@click.option("--ledger", "url", default=_LEDGER_URL, show_default=True)
@click.option("--start", type=int, default=0, show_default=True)
def events(session: str, url: str, start: int) -> None:
    """Print a session's events as JSON lines."""
    with open_ledger(url) as store:
        for event in store.events(session, start):
            click.echo(json.dumps(event.to_json(), ensure_ascii=False))


@ledger.command("append")
@click.argument("session")
@click.argument("events_path", metavar="EVENTS")
@click.option("--ledger", "url", default=_LEDGER_URL, show_default=True)
@click.option("--expected-revision", type=int, default=None)
def append(session: str, events_path: str, url: str, expected_revision: int | None) -> None:
    """Append a JSON list of events (or JSON lines) to a session, in one transaction."""
    batch = read_events(events_path)
    with open_ledger(url) as store:
        seqs = store.append_many(session, batch, expected_revision)
    click.echo(
        f"appended {len(seqs)} events to {session!r}; revision {seqs[-1] + 1 if seqs else 0}"
    )


@ledger.command("check")
@click.argument("session")
@click.option("--ledger", "url", default=_LEDGER_URL, show_default=True)
@click.pass_context
def check(ctx: click.Context, session: str, url: str) -> None:
    """Report every event of a session the meter cannot fold (exit 1 if any)."""
    with open_ledger(url) as store:
        report = check_session(store, session)
    for problem in report.problems:
        click.echo(f"seq {problem.seq}\t{problem.type}\t{problem.rule}\t{problem.detail}")
    verdict = "every event folds" if report.ok else f"{len(report.problems)} cannot be folded"
    click.echo(f"session {session!r}: {report.events} events, {verdict}")
    if not report.ok:
        ctx.exit(1)


@click.command()
@click.argument("session")
@click.option("--ledger", "url", default=_LEDGER_URL, show_default=True)
@click.option("--window", type=int, default=128_000, show_default=True)
@click.option("--counter", "spec", default=None, help="Counter spec (default: calibrated central).")
def measure(session: str, url: str, window: int, spec: str | None) -> None:
    """Replay a session's events into the tokens its next request takes."""
    with open_ledger(url) as store:
        counter = get_counter(spec) if spec else None  # None: the meter's own default
        meter_ = TokenMeter(store, counter=counter, context_window=window)
        result = meter_.measure(session)
    Console().print(measurement_table(Table(title=f"session {session!r}"), ("now", result)))
