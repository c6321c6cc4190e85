"""Options several commands share, and how their values become library objects."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click

from ctxbudget.errors import (
    FormatError,
    MissingExtraError,
    ProfileError,
    UnknownCounterError,
    UnknownModelError,
)
from ctxbudget.formats import FORMAT_NAMES, FormatName, detect_format
from ctxbudget.ledger import DEFAULT_SQLITE_PATH
from ctxbudget.models import ModelInfo, model_info
from ctxbudget.tokens import (
    PROFILE_NAMES,
    TokenCounter,
    default_counter,
    get_counter,
    model_family,
)

__all__ = [
    "AUTO_FORMAT",
    "DEFAULT_LEDGER_URL",
    "LEDGER_ENV",
    "command_line_wording",
    "counter_from_spec",
    "counter_option",
    "format_option",
    "guard_counter",
    "ledger_option",
    "meter_counter_option",
    "model_of_request",
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


def _counter_option(default: str) -> Callable[[_F], _F]:
    return click.option(
        "--counter",
        "counter_spec",
        default=None,
        metavar="SPEC",
        help="Token counter: chars4, cjk, calibrated:NAME, tiktoken:ENC, hf:PATH, auto:MODEL "
        f"(default: {default}).",
    )


def counter_option(function: _F) -> _F:
    """``--counter SPEC``: the counter a budget is guarded with (``get_counter``)."""
    return _counter_option("the conservative guard counter, or the model's tokenizer")(function)


def meter_counter_option(function: _F) -> _F:
    """``--counter SPEC`` for the meter, whose default predicts usage without a bias."""
    return _counter_option("the meter's calibrated:central, corrected by the session's usage")(
        function
    )


_LIBRARY_FORMAT_ARGUMENT = re.compile(r"\bformat='([a-z][a-z-]*)'")


def command_line_wording(message: str, choices: str) -> str:
    """A library message that names the ``format=`` argument, told as the ``--format``
    option (``choices``: what the option takes, e.g. ``"openai | anthropic"``)."""
    told = message.replace("name the format (format=...)", f"name it with --format {choices}")
    told = told.replace("pass format= if", f"pass --format {choices} if")
    told = told.replace("pass the format to read it as", f"pass --format {choices} to choose")
    return _LIBRARY_FORMAT_ARGUMENT.sub(r"--format \1", told)


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
        choices = " | ".join(FORMAT_NAMES)
        told = command_line_wording(str(error), choices)
        if "--format" not in told:
            told = f"{told}; name it with --format {choices}"
        raise FormatError(told) from error


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


def model_of_request(
    body: Mapping[str, Any], name: str | None
) -> tuple[ModelInfo | None, str | None]:
    """The model ``--model`` names, else the one the request body names, when
    ``ctxbudget.models`` knows it (the proxy reads the body's model the same way); and a
    note for standard error when the model came from the body or could not.

    A body's model that is not known, or no ``models`` extra to look it up in, leaves the
    window unknown and the note says so: a body is not a typed option, so its model is
    no error, but a window guessed in silence would be a wrong number. The caller prints
    the note once nothing else failed, so an error stays one line."""
    if name is not None:
        return resolve_model(name), None
    named = body.get("model")
    if not isinstance(named, str) or not named.strip():
        return None, None
    try:
        model = model_info(named)
    except UnknownModelError as error:
        return None, f"the body's model is not known, so its window is not: {error}"
    except MissingExtraError:
        return None, (
            f"the body names model {named!r}, but looking it up needs the 'models' extra "
            "(pip install 'ctxbudget[models]'); give --window N meanwhile"
        )
    window = f"window {model.context_window:,}" if model.context_window else "window unknown"
    return model, f"model {model.name} from the body ({window}); --model or --window overrides it"


def guard_counter(spec: str | None, model: ModelInfo | None = None) -> TokenCounter:
    """The counter a budget is guarded with: ``spec``, else the model's tokenizer when it
    is an exact vocabulary, else the conservative default. A calibrated estimate of a
    model's tokenizer (``calibrated:claude``) predicts well but may count a little
    under, which a guard must not."""
    exact = model is not None and model.counter_spec.startswith("exact:")
    return resolve_counter(spec, model if exact else None)


def counter_from_spec(spec: str) -> TokenCounter:
    """The counter ``--counter SPEC`` names; an unknown spec or a profile that is neither
    built in nor a readable file is one error line naming the option."""
    kind, _, argument = spec.partition(":")
    known = argument in PROFILE_NAMES or Path(argument).is_file()
    if kind == "calibrated" and argument and not known:
        raise ProfileError(
            f"--counter {spec}: {argument!r} is neither a built-in profile "
            f"({', '.join(PROFILE_NAMES)}) nor a profile file; name a built-in profile "
            "or give the path of a profile JSON file"
        )
    try:
        counter = get_counter(spec)
    except UnknownCounterError as error:
        raise UnknownCounterError(f"--counter {spec}: {error}") from error
    if kind == "auto" and model_family(argument) is None:
        click.echo(
            f"note: --counter {spec}: no tokenizer is known for {argument!r}, so it is "
            f"counted with {counter.name}; check the model name or name a counter",
            err=True,
        )
    return counter


def resolve_counter(spec: str | None, model: ModelInfo | None = None) -> TokenCounter:
    """The counter ``spec`` names, else the model's tokenizer, else the default guard counter."""
    if spec is not None:
        return counter_from_spec(spec)
    if model is not None:
        return get_counter(model.counter_spec)
    return default_counter()
