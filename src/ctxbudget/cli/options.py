"""Options several commands share, and how their values become library objects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, get_args

import click

from ctxbudget.formats import FormatName
from ctxbudget.ledger import DEFAULT_SQLITE_PATH
from ctxbudget.tokens import TokenCounter, default_counter, get_counter

__all__ = [
    "AUTO_FORMAT",
    "DEFAULT_LEDGER_URL",
    "LEDGER_ENV",
    "counter_option",
    "format_option",
    "ledger_option",
    "resolve_counter",
]

F = TypeVar("F", bound=Callable[..., Any])

AUTO_FORMAT = "auto"
"""Detect the request format from the body."""
DEFAULT_LEDGER_URL = f"sqlite:///{DEFAULT_SQLITE_PATH.as_posix()}"
"""The embedded SQLite ledger, under ``./.ctxbudget/``."""
LEDGER_ENV = "CTXBUDGET_LEDGER"
"""Environment variable that sets ``--ledger`` for every command."""


def ledger_option(function: F) -> F:
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


def format_option(function: F) -> F:
    """``--format``: a request format name, or auto (detected from the body)."""
    names = [AUTO_FORMAT, *get_args(FormatName)]
    return click.option(
        "--format",
        "format_name",
        type=click.Choice(names),
        default=AUTO_FORMAT,
        show_default=True,
        help="Request body format; auto detects it from the body.",
    )(function)


def counter_option(function: F) -> F:
    """``--counter SPEC``: the token counter (see ``ctxbudget.tokens.get_counter``)."""
    return click.option(
        "--counter",
        "counter_spec",
        default=None,
        metavar="SPEC",
        help="Token counter: chars4, cjk, calibrated:NAME, tiktoken:ENC, hf:PATH, auto:MODEL "
        "(default: the calibrated guard counter).",
    )(function)


def resolve_counter(spec: str | None) -> TokenCounter:
    """The counter ``spec`` names, or the library's default guard counter."""
    return get_counter(spec) if spec else default_counter()
