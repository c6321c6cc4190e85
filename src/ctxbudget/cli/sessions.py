"""``ctxbudget session``: import transcripts into the ledger, list, measure, chart, compact."""

from __future__ import annotations

import json

import click
from rich.console import Console

from ctxbudget.archives import FileArchive, LedgerArchive
from ctxbudget.cli.importing import import_command
from ctxbudget.cli.inputs import check_directory
from ctxbudget.cli.options import counter_from_spec, ledger_option, meter_counter_option
from ctxbudget.cli.render import history_chart, measurement_view
from ctxbudget.compaction import (
    ArchiveChoice,
    Compacted,
    CompactionConfig,
    CompactionOutcome,
    Compactor,
    NotNeeded,
)
from ctxbudget.errors import ConfigError
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.meter import DEFAULT_CONTEXT_WINDOW, CallPrediction, Measurement, TokenMeter
from ctxbudget.summaries import ExtractiveSummarizer
from ctxbudget.tokens import TokenCounter

__all__ = ["require_session", "session"]

_window_option = click.option(
    "--window",
    type=click.IntRange(min=1),
    metavar="N",
    default=DEFAULT_CONTEXT_WINDOW,
    show_default=True,
    help="Context window the pressure is measured against.",
)


def _meter_counter(spec: str | None) -> TokenCounter | None:
    """The counter a spec names; ``None`` keeps the meter's own (usage-calibrated) default."""
    return counter_from_spec(spec) if spec is not None else None


def _session_meter(
    store: Ledger, session_id: str, counter_spec: str | None, window: int
) -> TokenMeter:
    """The meter ``session measure`` and ``session history`` read a held session with."""
    require_session(store, session_id)
    return TokenMeter(store, counter=_meter_counter(counter_spec), context_window=window)


def require_session(store: Ledger, session_id: str) -> None:
    """``ConfigError`` unless the ledger holds ``session_id`` (a typo is not an empty session)."""
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
@meter_counter_option
@click.option("--json", "as_json", is_flag=True, help="Print the measurement as JSON.")
def measure(
    session_id: str, ledger_url: str, window: int, counter_spec: str | None, as_json: bool
) -> None:
    """Replay a session into the tokens its next request takes, and its pressure."""
    with open_ledger(ledger_url) as store:
        meter = _session_meter(store, session_id, counter_spec, window)
        result = meter.measure(session_id)
    if as_json:
        click.echo(json.dumps(_measurement_json(result), indent=1))
        return
    title = f"session {session_id!r}, counter {meter.counter.name}, window {window:,}"
    Console().print(measurement_view(result, title))


@session.command("history")
@click.argument("session_id", metavar="ID")
@ledger_option
@_window_option
@meter_counter_option
@click.option("--json", "as_json", is_flag=True, help="Print the calls as JSON.")
def history(
    session_id: str, ledger_url: str, window: int, counter_spec: str | None, as_json: bool
) -> None:
    """Chart the pressure after each call, the meter's prediction beside the reported usage."""
    with open_ledger(ledger_url) as store:
        meter = _session_meter(store, session_id, counter_spec, window)
        calls = meter.history(session_id)
    if as_json:
        click.echo(json.dumps([_call_json(n, c) for n, c in enumerate(calls, 1)], indent=1))
        return
    title = f"session {session_id!r}: {len(calls)} calls, window {window:,}"
    Console().print(history_chart(calls, window, title))


def _measurement_json(m: Measurement) -> dict[str, object]:
    return {
        "log_revision": m.log_revision,
        "baseline": {"kind": m.baseline.kind, "tokens": m.baseline.tokens},
        "surface_delta_tokens": m.surface_delta_tokens,
        "total_tokens": m.total_tokens,
        "capacity": m.capacity,
        "pressure": str(m.pressure),
        "surface_tokens": m.surface_tokens,
        "nodes": len(m.nodes),
    }


def _call_json(number: int, call: CallPrediction) -> dict[str, object]:
    return {
        "call": number,
        "seq": call.seq,
        "predicted_tokens": call.predicted_tokens,
        "reported_tokens": call.reported_tokens,
        "anchored": call.anchored,
        "error": call.error,
    }


def _compacted_lines(session_id: str, outcome: Compacted, archive_hint: str) -> list[str]:
    return [
        f"compacted session {session_id!r} ({outcome.trigger}): surface seqs "
        f"{outcome.start_seq}..{outcome.end_seq}, {len(outcome.shadowed_seqs)} messages of "
        f"{outcome.shadowed_tokens:,} tokens -> a {outcome.summary_tokens:,}-token summary",
        _total_line(outcome),
        f"originals: {outcome.locator}",
        f"show them with: ctxbudget archive '{outcome.locator}' {archive_hint}",
    ]


def _total_line(outcome: Compacted) -> str:
    """The meter's totals around a compaction. They can fall by more or less than the span's
    own estimate (shadowed minus summary): the meter scales what it prices by the session's
    usage, so both figures are given when they differ, each named."""
    before, after = outcome.total_tokens_before, outcome.total_tokens_after
    line = f"total {before:,} -> {after:,} tokens ({before - after:,} fewer)"
    if before - after != outcome.net_removed_tokens:
        line += (
            f"; the span itself is {outcome.net_removed_tokens:,} tokens smaller by the counter, "
            "and the meter scales that by what this session's usage taught it"
        )
    return line


def _outcome_lines(session_id: str, outcome: CompactionOutcome, archive_hint: str) -> list[str]:
    if isinstance(outcome, Compacted):
        return _compacted_lines(session_id, outcome, archive_hint)
    if isinstance(outcome, NotNeeded):
        return [
            f"not needed: session {session_id!r} takes {outcome.total_tokens:,} tokens, below "
            f"the threshold of {outcome.threshold_tokens:,}; nothing was changed"
        ]
    lines = [f"stalled ({outcome.reason}): {outcome.detail}; nothing more was changed"]
    for done in outcome.compactions:
        lines += _compacted_lines(session_id, done, archive_hint)
    return lines


@session.command("compact")
@click.argument("session_id", metavar="ID")
@ledger_option
@_window_option
@click.option(
    "--if-needed", is_flag=True, help="Compact only when the session is at the threshold."
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=CompactionConfig().threshold_ratio,
    show_default=True,
    help="Share of the window at which --if-needed compacts.",
)
@click.option(
    "--retain",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Tokens of newest history kept verbatim (default: 16% of the window).",
)
@click.option(
    "--archive",
    "archive_dir",
    default=None,
    metavar="DIR",
    help="Keep the originals as files in DIR (default: they stay addressable in the ledger).",
)
def compact(
    session_id: str,
    ledger_url: str,
    window: int,
    if_needed: bool,
    threshold: float,
    retain: int | None,
    archive_dir: str | None,
) -> None:
    """Compact a session: archive its oldest span, replace it by an extractive summary.

    Offline (ExtractiveSummarizer). The newest history is kept verbatim and a tool
    call is never separated from its result. Without --if-needed it compacts now.
    """
    config = CompactionConfig(threshold_ratio=threshold, retain_tokens=retain)
    try:
        config.retain_for(window)  # checked here so the error names the options
    except ConfigError as error:
        given = f"--retain {retain:,}" if retain is not None else "the default tail (16%)"
        raise click.UsageError(
            f"{given} must be less than the compaction threshold of "
            f"{config.threshold_tokens(window):,} tokens (--window {window:,} x --threshold "
            f"{threshold:g}); keep a shorter tail or give the real --window"
        ) from error
    if archive_dir is not None:
        check_directory(archive_dir, "--archive")
    with open_ledger(ledger_url) as store:
        require_session(store, session_id)
        meter = TokenMeter(store, context_window=window)
        archive: ArchiveChoice = LedgerArchive.per_session(store)
        hint = f"--session {session_id}"
        if archive_dir is not None:
            archive, hint = FileArchive(archive_dir), f"--dir {archive_dir}"
        compactor = Compactor(store, meter, ExtractiveSummarizer(), archive, config)
        outcome = _compact(compactor, session_id, if_needed)
    if outcome is None:
        click.echo(
            f"nothing to compact: session {session_id!r} has no span older than the kept tail "
            "that a summary could replace; nothing was changed"
        )
        return
    for line in _outcome_lines(session_id, outcome, hint):
        click.echo(line)


def _compact(compactor: Compactor, session_id: str, if_needed: bool) -> CompactionOutcome | None:
    """``compact_if_needed`` at the threshold, or the selected span right now (``None``:
    there is none)."""
    if if_needed:
        return compactor.compact_if_needed(session_id)
    span = compactor.select_range(session_id)
    if span is None:
        return None
    return compactor.compact_region(session_id, span.start_seq, span.end_seq)
