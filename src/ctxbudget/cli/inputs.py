"""Reading the command line's inputs, with errors that say what is wrong and what to do."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxbudget.errors import ConfigError, FormatError, InputUnreadableError, OutputUnwritableError
from ctxbudget.formats import decode_json

__all__ = [
    "check_directory",
    "check_writable",
    "read_config_file",
    "read_events",
    "read_json",
    "read_request_body",
    "read_text",
    "write_text",
]


def read_text(path: str) -> str:
    """A file's text, or standard input for ``-``; a UTF-8 byte order mark (as some Windows
    editors write) is dropped, not counted or parsed."""
    if path == "-":
        return _stdin_text()
    try:
        return Path(path).read_text("utf-8-sig")
    except IsADirectoryError as error:
        raise InputUnreadableError(f"{path!r} is a directory; give a file") from error
    except OSError as error:
        raise InputUnreadableError(
            f"cannot read {path!r}: {error.strerror or error}; check the path and its permissions"
        ) from error
    except UnicodeDecodeError as error:
        raise InputUnreadableError(
            f"{path!r} is not UTF-8 text ({error.reason} at byte {error.start}); "
            "convert it to UTF-8"
        ) from error


def _stdin_text() -> str:
    """Standard input decoded as files are: strictly, as UTF-8. Read as text, invalid bytes
    would become whatever the locale's error handler makes of them (surrogates under the
    C locale) and be counted without a word."""
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputUnreadableError(
            f"standard input is not UTF-8 text ({error.reason} at byte {error.start}); "
            "convert it to UTF-8"
        ) from error


def read_config_file(path: str, option: str = "--config") -> Mapping[str, Any]:
    """The TOML document ``option`` names, or one error line saying why it cannot be used
    (the library reads it again; this is what the command line tells the user first)."""
    try:
        text = read_text(path)
    except InputUnreadableError as error:
        raise InputUnreadableError(f"{option}: {error}") from error
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{option} {path!r} is not valid TOML ({error})") from error


def check_directory(path: str, option: str) -> Path:
    """``path`` as a directory to write into (created when first needed); ``ConfigError``
    if a file is already there."""
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise ConfigError(
            f"{option} {path!r} is a file, not a directory; give a directory "
            "(it is created if missing)"
        )
    return directory


def check_writable(path: str, option: str) -> None:
    """``OutputUnwritableError`` now if ``path`` cannot be written later (a directory, or a
    directory that does not exist), so a long run does not fail at its very end."""
    if path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise OutputUnwritableError(f"{option} {path!r} is a directory; give a file path")
    if not target.parent.is_dir():
        raise OutputUnwritableError(
            f"{option} {path!r}: the directory {str(target.parent)!r} does not exist; create "
            "it or give another path"
        )


def write_text(path: str, text: str) -> None:
    """Write ``text`` to a file, or to standard output for ``-``."""
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, "utf-8")
    except IsADirectoryError as error:
        raise OutputUnwritableError(
            f"cannot write {path!r}: it is a directory; give a file path to write to"
        ) from error
    except OSError as error:
        raise OutputUnwritableError(
            f"cannot write {path!r}: {error.strerror or error}; check the directory exists "
            "and is writable"
        ) from error


def read_json(path: str) -> Any:
    """A JSON document from a file or standard input."""
    return decode_json(read_text(path), repr(path))


_JSON_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}


def read_request_body(path: str) -> Mapping[str, Any]:
    """A request body (a JSON object) from a file or standard input."""
    body = read_json(path)
    if not isinstance(body, Mapping):
        kind = "null" if body is None else _JSON_KINDS.get(type(body), type(body).__name__)
        raise FormatError(f"{path!r} holds a JSON {kind}, not a request object")
    return body


def read_events(path: str) -> list[Any]:
    """Events from a JSON list or from JSON lines."""
    text = read_text(path)
    if text.lstrip().startswith("["):
        loaded = decode_json(text, repr(path))
        return list(loaded)
    lines = enumerate(text.splitlines(), 1)
    return [decode_json(line, f"{path!r} line {n}") for n, line in lines if line.strip()]
