"""``ctxbudget archive``: an original back from the archive it was stored in, by its locator.

``fit --archive DIR`` stores stubbed tool outputs as files (``FileArchive``);
compaction keeps the originals of a summarized span in the ledger
(``LedgerArchive``). Both give them back exactly; this command prints them as a
transcript.
"""

from __future__ import annotations

import click

from ctxbudget.archives import Archive, FileArchive, LedgerArchive
from ctxbudget.cli.options import ledger_option
from ctxbudget.ledger import open_ledger
from ctxbudget.summaries import render_transcript

__all__ = ["archive_show"]


def _show(archive: Archive, locator: str) -> None:
    click.echo(render_transcript(archive.retrieve(locator).messages))


@click.command("archive")
@click.argument("locator")
@click.option(
    "--dir", "archive_dir", default=None, metavar="DIR", help="The directory given to --archive."
)
@click.option(
    "--session", "session_id", default=None, metavar="ID", help="The session a compaction ran on."
)
@ledger_option
def archive_show(
    locator: str, archive_dir: str | None, session_id: str | None, ledger_url: str
) -> None:
    """Print an archived original: from --dir DIR (fit) or --session ID (compaction)."""
    if (archive_dir is None) == (session_id is None):
        raise click.UsageError("give one of --dir DIR (a fit archive) or --session ID")
    if archive_dir is not None:
        _show(FileArchive(archive_dir), locator)
        return
    with open_ledger(ledger_url) as store:
        _show(LedgerArchive(store, str(session_id)), locator)
