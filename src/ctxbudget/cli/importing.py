"""``ctxbudget session import``: agent transcripts into the ledger, usage included.

Reading a transcript is the library's (``ctxbudget.transcripts``); this command
shows progress, appends each imported session in one transaction, and keeps going
past a file it cannot read, naming it (and the line) in one error line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from ctxbudget.cli.exit_codes import ExitCode
from ctxbudget.cli.messages import error_line
from ctxbudget.cli.options import command_line_wording, ledger_option
from ctxbudget.errors import ConflictError, CtxBudgetError, InputUnreadableError
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.transcripts import TRANSCRIPT_FORMATS, ImportedSession, read_transcript

__all__ = ["PROGRESS_MODES", "import_command"]

_FORMAT_CHOICES = ("auto", *TRANSCRIPT_FORMATS)
"""What ``--format`` accepts; auto tells them apart by their content."""


PROGRESS_MODES = ("auto", "always", "never")
"""``--progress``: auto shows the bar only when standard error is a terminal."""


@contextmanager
def _progress(paths: Sequence[str], mode: str) -> Iterator[tuple[Progress, TaskID]]:
    # The bar goes to standard error only, so standard output stays the results
    # (lines, or one JSON document with --json) whatever the mode.
    console = Console(stderr=True, force_terminal=True if mode == "always" else None)
    progress = Progress(
        TextColumn("[bold]importing[/bold] {task.fields[file]}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=mode == "never" or (mode == "auto" and not console.is_terminal),
    )
    total = sum(_size(path) for path in paths)
    with progress:
        yield progress, progress.add_task("import", total=total, file="")


def _not_a_file(path: str) -> InputUnreadableError | None:
    """The error for a path that is no file (missing, a directory), as every other
    command reports it; the transcript reader judges the files that exist."""
    target = Path(path)
    if target.is_dir():
        return InputUnreadableError(f"{path!r} is a directory; give the transcript files in it")
    if not target.exists():
        return InputUnreadableError(f"cannot read {path!r}: no such file; check the path")
    return None


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0  # reported when it is read


def _append(store: Ledger, imported: ImportedSession) -> dict[str, object]:
    """Append one imported session; what happened, as the ``--json`` record."""
    events = list(imported.events)
    record: dict[str, object] = {"session_id": imported.session_id, "agent": imported.agent}
    try:
        store.append_many(imported.session_id, events, expected_revision=0)
    except ConflictError:
        return {**record, "status": "skipped", "events": store.revision(imported.session_id)}
    calls = sum(
        1 for e in events if e.get("type") == "assistant/message" and "usage" in e.get("data", {})
    )
    return {**record, "status": "imported", "events": len(events), "calls_with_usage": calls}


def _result_line(record: dict[str, object]) -> str:
    if record["status"] == "skipped":
        return f"skipped {record['session_id']}: already in the ledger ({record['events']} events)"
    calls = record["calls_with_usage"]
    return (
        f"imported {record['agent']} session {record['session_id']}: {record['events']} events, "
        f"{calls} call{'' if calls == 1 else 's'} with usage"
    )


def _error_line(path: str, error: CtxBudgetError) -> str:
    message = command_line_wording(str(error), " | ".join(TRANSCRIPT_FORMATS))
    where = path
    line = getattr(error, "line", None)
    if line:
        where = f"{path}:{line}"
    if where not in message:
        message = f"{where}: {message}"
    return error_line(error.code, message)


@click.command("import")
@click.argument("paths", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(_FORMAT_CHOICES),
    default="auto",
    show_default=True,
    help="Transcript format; auto detects it from the file.",
)
@ledger_option
@click.option(
    "--progress",
    "progress_mode",
    type=click.Choice(PROGRESS_MODES),
    default="auto",
    show_default=True,
    help="Progress bar on standard error: auto (when it is a terminal), always, never.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as one JSON list.")
def import_command(
    paths: tuple[str, ...], format_name: str, ledger_url: str, progress_mode: str, as_json: bool
) -> None:
    """Import agent transcripts (Claude Code, Codex CLI, OpenHands, OpenAI or Anthropic JSON).

    A file that cannot be read is reported on one line and the others are still
    imported; the exit status is then 1.
    """
    if "-" in paths:
        raise click.UsageError(
            "session import reads transcript files by path, not standard input ('-'): "
            "save the transcript to a file and give its path"
        )
    failed = 0
    records: list[dict[str, object]] = []
    with open_ledger(ledger_url) as store, _progress(paths, progress_mode) as (progress, task):
        for path in paths:
            progress.update(task, file=path)
            missing = _not_a_file(path)
            if missing is not None:
                failed += 1
                click.echo(_error_line(path, missing), err=True)
                continue
            try:
                for imported in read_transcript(path, format=format_name):
                    record = _append(store, imported)
                    records.append({"file": path, **record})
                    if not as_json:
                        click.echo(_result_line(record))
            except CtxBudgetError as error:
                failed += 1
                click.echo(_error_line(path, error), err=True)
            except OSError as error:
                failed += 1
                unreadable = InputUnreadableError(f"cannot read it: {error.strerror or error}")
                click.echo(_error_line(path, unreadable), err=True)
            progress.advance(task, _size(path))
    if as_json:
        click.echo(json.dumps(records, ensure_ascii=False, indent=1))
    if failed:
        click.echo(f"{failed} of {len(paths)} files could not be imported", err=True)
        raise click.exceptions.Exit(int(ExitCode.ERROR))
