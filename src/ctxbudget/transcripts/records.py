"""A transcript file as JSON records: JSON Lines, one JSON document, or JSON in Markdown.

Agents write JSON Lines (Claude Code, Codex, OpenHands evaluations), one JSON
document (``claude -p --verbose --output-format json``, request bodies, OpenHands
trajectories), and some harnesses save that JSON inside a Markdown report's
```` ```json ```` fence, optionally between ``//`` comment lines; all three read here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxbudget.errors import TranscriptError

__all__ = ["Record", "Transcript", "load_transcript"]

_FENCE: Final = re.compile(r"^```json[ \t]*\n", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Record:
    """One JSON value of a transcript; ``line`` is where it starts (1-based), ``None``
    inside a single JSON document, where ``index`` is its position instead."""

    line: int | None
    index: int
    value: Any

    def where(self) -> str:
        """How an error message points at this record."""
        return f"line {self.line}" if self.line is not None else f"item {self.index}"


@dataclass(frozen=True, slots=True)
class Transcript:
    """A transcript file's records; ``lines`` is True for JSON Lines."""

    path: str
    records: tuple[Record, ...]
    lines: bool

    def fail(self, record: Record | None, problem: str) -> TranscriptError:
        """The error for ``problem`` at ``record`` (or the file as a whole)."""
        if record is None or record.line is not None:
            return TranscriptError(self.path, record.line if record else None, problem)
        return TranscriptError(self.path, None, f"{record.where()}: {problem}")


def load_transcript(path: str | Path) -> Transcript:
    """The records of the file at ``path``; ``TranscriptError`` if it holds no JSON."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise TranscriptError(name, None, f"cannot be read ({exc.strerror or exc})") from None
    text = _decode(name, raw)
    if not text.strip():
        raise TranscriptError(name, None, "is empty: it holds no transcript records")
    start = text.lstrip()[:1]
    try:
        if start in ("{", "["):
            return _json_or_lines(name, text)
        return _markdown(name, text)
    except RecursionError:  # the json module gives up on deep nesting this way
        raise TranscriptError(
            name, None, "is nested too deeply to be read as JSON; no agent writes such records"
        ) from None


def _decode(name: str, raw: bytes) -> str:
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise TranscriptError(
            name, line, f"is not UTF-8 (byte 0x{raw[exc.start]:02x}); re-save the file as UTF-8"
        ) from None


def _json_or_lines(name: str, text: str) -> Transcript:
    first = text.lstrip().split("\n", 1)[0]
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return _document(name, text)  # a document spread over lines
    if not text.strip().count("\n"):
        return _document(name, text)
    records: list[Record] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TranscriptError(
                name,
                number,
                f"is not JSON ({exc.msg} at column {exc.colno}); a JSON Lines transcript holds "
                "one JSON object per line (a session still being written may end mid-line)",
            ) from None
        records.append(Record(number, len(records), value))
    return Transcript(name, tuple(records), lines=True)


def _document(name: str, text: str) -> Transcript:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            name, exc.lineno, f"is not JSON ({exc.msg} at column {exc.colno})"
        ) from None
    return _records_of(name, value)


def _records_of(name: str, value: Any) -> Transcript:
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and v]
        wrapper = len(lists) == 1 and all(isinstance(v, dict) for v in lists[0])
        if wrapper and not _is_record(value):
            value = lists[0]  # a harness's envelope around the event list
    items = value if isinstance(value, list) else [value]
    return Transcript(name, tuple(Record(None, i, v) for i, v in enumerate(items)), lines=False)


def _is_record(value: dict[str, Any]) -> bool:
    """True when ``value`` is a transcript in itself (a request body, an evaluation
    output), not an envelope around a list of events."""
    return "messages" in value or "history" in value or "type" in value


def _markdown(name: str, text: str) -> Transcript:
    for match in _FENCE.finditer(text):
        end = text.find("\n```", match.end())
        body = text[match.end() : end if end >= 0 else len(text)]
        kept = body.split("\n")
        while kept and kept[0].lstrip().startswith("//"):
            kept.pop(0)
        while kept and (not kept[-1].strip() or kept[-1].lstrip().startswith("//")):
            kept.pop()
        try:
            value = json.loads("\n".join(kept))
        except json.JSONDecodeError:
            continue
        return _records_of(name, value)
    raise TranscriptError(
        name,
        None,
        "holds no transcript: it is neither JSON, JSON Lines, nor Markdown with a ```json block",
    )
