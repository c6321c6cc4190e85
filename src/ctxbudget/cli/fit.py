"""``ctxbudget fit``: hold a request to its budget, write the body to send, say what was done.

Enforcement is the library's (``ctxbudget.enforce``); this command reads the
body and the budget, wraps the archive to list what it stored, and writes the
result. A refusal is raised as ``BudgetExceeded`` and exits 3 (``app``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

import click

from ctxbudget.archives import FileArchive, Original
from ctxbudget.cli.inputs import check_directory, read_config_file, read_request_body, write_text
from ctxbudget.cli.options import (
    counter_option,
    format_option,
    guard_counter,
    model_of_request,
    model_option,
    resolve_format,
)
from ctxbudget.enforce import (
    BUDGET_EXCEEDED,
    RANGES,
    STAGE_APPLIED,
    BudgetConfig,
    BudgetEvent,
    Enforced,
    effective_budget,
    enforce_budget,
    load_budget_config,
)
from ctxbudget.errors import ConfigError
from ctxbudget.formats import input_cap, parse_request
from ctxbudget.models import ModelInfo, next_price_tier

__all__ = ["fit", "fit_alias"]


class _StderrSink:
    """Notes (a bad config key, the cache guard) go to standard error at once; the stages
    that ran are kept for the report, so a refusal is one line: the error itself."""

    def __init__(self) -> None:
        self.stages: list[BudgetEvent] = []

    def emit(self, event: BudgetEvent) -> None:
        if event.name == STAGE_APPLIED:
            self.stages.append(event)
        elif event.name != BUDGET_EXCEEDED:
            click.echo(f"note: {event.name}: {event.message}", err=True)


@dataclass
class _ListingArchive:
    """The archive enforcement writes to, listing each original it stored."""

    inner: FileArchive
    stored: list[tuple[str, Original]] = field(default_factory=list)

    def store(self, original: Original) -> str:
        """Store with the inner archive and remember what was stored."""
        locator = self.inner.store(original)
        self.stored.append((locator, original))
        return locator

    def retrieve(self, locator: str) -> Original:
        """The inner archive's original."""
        return self.inner.retrieve(locator)


def _archive(directory: str | None) -> _ListingArchive | None:
    if directory is None:
        return None
    return _ListingArchive(FileArchive(check_directory(directory, "--archive")))


def _config(config_path: str | None, max_input: int | None, sink: _StderrSink) -> BudgetConfig:
    if config_path is None and max_input is None:
        raise click.UsageError("give the budget: --config agent.toml or --max-input N")
    config = BudgetConfig()
    if config_path is not None:
        read_config_file(config_path)  # a missing, unreadable or non-TOML file: one line
        config = load_budget_config(config_path, sink=sink)
    if max_input is not None:
        config = replace(config, max_input_tokens=max_input)
    if config.max_input_tokens <= 0:
        raise ConfigError(
            f"{config_path!r} sets no usable [budget] max_input_tokens (see the note above), "
            "so there is nothing to fit to; fix the file or give --max-input N"
        )
    return config


def _budget_text(config: BudgetConfig, cap: int, model: ModelInfo | None) -> str:
    """The budget the request was held to: the configured one, or the model's input cap
    when that is lower (enforcement holds the lower; the report must not show the other)."""
    budget = effective_budget(config, cap if cap > 0 else None)
    if budget < config.max_input_tokens and model is not None:
        return (
            f"budget {budget:,}: the input cap of {model.name} (window minus output reserve), "
            f"below the configured {config.max_input_tokens:,}"
        )
    return f"budget {budget:,}"


def _report(
    result: Enforced, budget: str, sink: _StderrSink, archive: _ListingArchive | None
) -> None:
    stages = ", ".join(result.info.stages) or "none (it already fits)"
    click.echo(
        f"fitted: {result.estimate_before:,} -> {result.estimate_after:,} tokens "
        f"({budget}); stages run: {stages}",
        err=True,
    )
    for event in sink.stages:
        click.echo(f"  {event.message}", err=True)
    if archive is None:
        return
    for locator, original in archive.stored:
        what = f"{original.kind} of {original.tool_name}" if original.tool_name else original.kind
        click.echo(f"archived: {what} -> {locator}", err=True)
    if archive.stored:
        click.echo(
            f"show an original with: ctxbudget archive LOCATOR --dir {archive.inner.path}",
            err=True,
        )


@click.command()
@click.argument("request_path", metavar="REQUEST.json")
@click.option(
    "--config", "config_path", default=None, metavar="FILE", help="Agent TOML file with [budget]."
)
@click.option(
    "--max-input",
    "--budget",
    "max_input",
    type=click.IntRange(min=1, max=int(RANGES["max_input_tokens"].high)),
    default=None,
    metavar="N",
    help="The input budget in tokens (wins over --config's max_input_tokens).",
)
@click.option(
    "-o",
    "--output",
    default="-",
    show_default=True,
    metavar="FILE",
    help="Where to write the body.",
)
@click.option(
    "--archive", "archive_dir", default=None, metavar="DIR", help="Keep stubbed originals in DIR."
)
@click.option(
    "--cost-pressure", is_flag=True, help="Trim harder: the cost-pressure rule of docs/enforce.md."
)
@format_option
@model_option
@counter_option
def fit(
    request_path: str,
    config_path: str | None,
    max_input: int | None,
    output: str,
    archive_dir: str | None,
    cost_pressure: bool,
    format_value: str,
    model_name: str | None,
    counter_spec: str | None,
) -> None:
    """Fit a request to its budget: write the body to send, or refuse (exit 3).

    With --model (or a model the body names that ctxbudget.models knows), the model's
    window caps the budget (minus the output reserve) and a request near its price cliff
    is trimmed as under cost pressure.
    """
    sink = _StderrSink()
    config = _config(config_path, max_input, sink)
    archive = _archive(archive_dir)
    body = read_request_body(request_path)
    model, model_note = model_of_request(body, model_name)
    cliff = next_price_tier(model, 0) if model is not None else None
    request_format = resolve_format(body, format_value)
    window = (model.context_window or 0) if model is not None else 0
    reserve = (model.max_output_tokens or 0) if model is not None else 0
    result = enforce_budget(
        body,
        config,
        format=request_format,
        counter=guard_counter(counter_spec, model),
        window=window,
        output_reserve=reserve,
        price_tier_tokens=cliff.above_tokens if cliff is not None else None,
        cost_pressure=cost_pressure,
        sink=sink,
        archive=archive,
    )
    write_text(output, json.dumps(result.body, ensure_ascii=False, indent=1) + "\n")
    if model_note is not None:
        click.echo(f"note: {model_note}", err=True)
    cap = input_cap(parse_request(body, request_format), window, default_output=reserve)
    _report(result, _budget_text(config, cap, model), sink, archive)


fit_alias = click.Command(
    "enforce",
    callback=fit.callback,
    params=fit.params,
    help="Alias of `fit` (its former name).",
    hidden=True,
)
