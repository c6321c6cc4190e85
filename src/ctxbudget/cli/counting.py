"""``ctxbudget count``: the tokens of texts, with the counters that counted them."""

from __future__ import annotations

import click

from ctxbudget.cli.inputs import read_text
from ctxbudget.tokens import default_counter, get_counter

__all__ = ["count"]


@click.command()
@click.argument("paths", nargs=-1, metavar="[FILE|-]...")
@click.option(
    "--counter",
    "specs",
    multiple=True,
    metavar="SPEC",
    help="Counter spec, repeatable: chars4, cjk, calibrated:NAME, tiktoken:ENC, auto:MODEL.",
)
def count(paths: tuple[str, ...], specs: tuple[str, ...]) -> None:
    """Count the tokens of files (or standard input); tab-separated, one column per counter."""
    counters = [get_counter(s) for s in specs] or [default_counter()]
    click.echo("\t".join(["input", "chars", *(c.name for c in counters)]))
    for path in paths or ("-",):
        text = read_text(path)
        click.echo("\t".join([path, str(len(text)), *(str(c.count(text)) for c in counters)]))
