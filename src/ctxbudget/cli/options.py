"""Options several commands share, and how their values become library objects."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from ctxbudget.errors import FormatError
from ctxbudget.formats import FORMAT_NAMES, FormatName, detect_format
from ctxbudget.ledger import DEFAULT_SQLITE_PATH
from ctxbudget.models import ModelInfo, model_info
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__all__ = [
    "AUTO_FORMAT",
    "DEFAULT_LEDGER_URL",
    "LEDGER_ENV",
    "counter_option",
    "format_option",
    "guard_counter",
    "ledger_option",
    "model_option",
    "resolve_counter",
    "resolve_format",
    "resolve_model",
]

_F = TypeVar("_F", bound=Callable[..., Any])

AUTO_FORMAT = "auto"
"""Detect the request format from the body."""
DEFAULT_LEDGER_URL = f"sqlite:///{DEFAULT_SQLITE_PATH.as_posix()}"
"""The embedded SQLite ledger, under ``./.ctxbudget/``."""
LEDGER_ENV = "CTXBUDGET_LEDGER"
"""Environment variable that sets ``--ledger`` for every command."""


def ledger_option(function: _F) -> _F:
    """``--ledger URL``: memory://, sqlite:///PATH or postgresql://..."""
    return click.option(
        "--ledger",
        "ledger_url",
        default=DEFAULT_LEDGER_URL,
        show_default=True,
        envvar=LEDGER_ENV,
        metavar="URL",
        help=f"Session ledger: sqlite:///PATH, postgresql://... or memory:// (env {LEDGER_ENV}).",
    )(function)


def format_option(function: _F) -> _F:
    """``--format``: a request format name, or auto (detected from the body)."""
    names = [AUTO_FORMAT, *FORMAT_NAMES]
    return click.option(
        "--format",
        "format_value",
        type=click.Choice(names),
        default=AUTO_FORMAT,
        show_default=True,
        help="Request body format; auto detects it from the body.",
    )(function)


def counter_option(function: _F) -> _F:
    """``--counter SPEC``: the token counter (see ``ctxbudget.tokens.get_counter``)."""
    return click.option(
        "--counter",
        "counter_spec",
        default=None,
        metavar="SPEC",
        help="Token counter: chars4, cjk, calibrated:NAME, tiktoken:ENC, hf:PATH, auto:MODEL "
        "(default: the calibrated guard counter).",
    )(function)


def resolve_format(body: Mapping[str, Any], value: str) -> FormatName:
    """The format ``--format`` names, or the one detected from ``body`` for auto.

    A body that matches no format, or several, is the library's ``FormatError``,
    told in command-line terms.
    """
    for name in FORMAT_NAMES:
        if value == name:
            return name
    try:
        return detect_format(body)
    except FormatError as error:
        raise FormatError(
            f"{error}; on the command line: --format {' | '.join(FORMAT_NAMES)}"
        ) from error


def model_option(function: _F) -> _F:
    """``--model NAME``: a model known by name (``ctxbudget.models``)."""
    return click.option(
        "--model",
        "model_name",
        default=None,
        metavar="NAME",
        help="Model name (e.g. claude-sonnet-4-5, gpt-4o): its window, output limit, prices "
        "and tokenizer (needs the 'models' extra).",
    )(function)


def resolve_model(name: str | None) -> ModelInfo | None:
    """What the library knows about model ``name`` (``UnknownModelError`` if nothing)."""
    return model_info(name) if name is not None else None  # "" is a typo, not "no model"


def guard_counter(spec: str | None, model: ModelInfo | None = None) -> TokenCounter:
    """The counter a budget is guarded with: ``spec``, else the model's tokenizer when it
    is an exact vocabulary, else the conservative default. A calibrated estimate of a
    model's tokenizer (``calibrated:claude``) predicts well but may count a little
    under, which a guard must not."""
    exact = model is not None and model.counter_spec.startswith("exact:")
    return resolve_counter(spec, model if exact else None)


def resolve_counter(spec: str | None, model: ModelInfo | None = None) -> TokenCounter:
    """The counter ``spec`` names, else the model's tokenizer, else the default guard counter."""
    if spec:
        return get_counter(spec)
    if model is not None:
        return get_counter(model.counter_spec)
    return default_counter()
