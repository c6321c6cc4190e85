"""``ctxbudget count``: the tokens of texts, with the counters that counted them."""

from __future__ import annotations

import click

from ctxbudget.cli.inputs import read_text
from ctxbudget.cli.options import counter_from_spec, model_option, resolve_model
from ctxbudget.models import ModelInfo, price_tier
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__all__ = ["count"]


def _model_lines(model: ModelInfo, tokens: int) -> list[str]:
    """What ``--model`` adds: the model's window, output limit and the price tier of ``tokens``."""

    def known(value: int | None) -> str:
        return f"{value:,}" if value is not None else "unknown"

    lines = [
        f"model\t{model.name}",
        f"window\t{known(model.context_window)}",
        f"max_output\t{known(model.max_output_tokens)}",
    ]
    tier = price_tier(model, tokens)
    if tier is not None and tier.input_usd_per_mtok is not None:
        where = f"above {tier.above_tokens:,} tokens" if tier.above_tokens else "base"
        lines.append(f"input_price\t${tier.input_usd_per_mtok}/Mtok ({where} tier)")
    return lines


@click.command()
@click.argument("paths", nargs=-1, metavar="[FILE|-]...")
@click.option(
    "--counter",
    "specs",
    multiple=True,
    metavar="SPEC",
    help="Counter spec, repeatable: chars4, cjk, calibrated:NAME, tiktoken:ENC, auto:MODEL.",
)
@model_option
def count(paths: tuple[str, ...], specs: tuple[str, ...], model_name: str | None) -> None:
    """Count the tokens of files (or standard input); tab-separated, one column per counter.

    With --model the text is counted with the model's tokenizer, and the model's
    window, output limit and the price tier of the largest count follow the table.
    """
    if specs and model_name:
        raise click.UsageError("give --counter SPEC or --model NAME, not both")
    model = resolve_model(model_name)
    counters: list[TokenCounter] = [counter_from_spec(s) for s in specs]
    if model is not None:
        counters = [get_counter(model.counter_spec)]
    counters = counters or [default_counter()]
    # Every input is read before anything is printed: a bad file is one error line, not
    # a table cut short.
    texts = [(path, read_text(path)) for path in paths or ("-",)]
    click.echo("\t".join(["input", "chars", *(c.name for c in counters)]))
    largest = 0
    for path, text in texts:
        counts = [c.count(text) for c in counters]
        largest = max(largest, *counts)
        click.echo("\t".join([path, str(len(text)), *map(str, counts)]))
    if model is not None:
        click.echo("\n".join(["", *_model_lines(model, largest)]))
