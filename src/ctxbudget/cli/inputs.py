"""Reading the command line's inputs, with errors that say what to fix."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ctxbudget.errors import ConfigError

__all__ = ["parse_json", "read_events", "read_json", "read_text", "reserved_output"]


def read_text(path: str) -> str:
    """A file's text, or standard input for ``-``."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text("utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read {path!r}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path!r} is not UTF-8 text ({error.reason})") from error


def parse_json(text: str, where: str) -> Any:
    """JSON from ``text``; the error names ``where`` and the spot."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{where} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from error


def read_json(path: str) -> Any:
    """A JSON document from a file or standard input."""
    return parse_json(read_text(path), repr(path))


def read_events(path: str) -> list[Any]:
    """Events from a JSON list or from JSON lines."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        loaded = parse_json(text, repr(path))
        return list(loaded)
    lines = enumerate(text.splitlines(), 1)
    return [parse_json(line, f"{path!r} line {n}") for n, line in lines if line.strip()]


def reserved_output(body: Any) -> int:
    """The output a request body reserves (``max_tokens`` or ``max_completion_tokens``)."""
    if not isinstance(body, dict):
        return 0
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0
