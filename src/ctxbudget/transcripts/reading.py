"""Choosing a transcript's reader: by the format named, or detected from its records."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from ctxbudget.errors import TranscriptError
from ctxbudget.transcripts.chat import chat_format_of, read_chat
from ctxbudget.transcripts.claude_code import looks_like_claude_code, read_claude_code
from ctxbudget.transcripts.codex import looks_like_codex, read_codex
from ctxbudget.transcripts.openhands import looks_like_openhands, read_openhands
from ctxbudget.transcripts.records import Transcript, load_transcript
from ctxbudget.transcripts.session import ImportedSession

__all__ = ["TRANSCRIPT_FORMATS", "detect_format", "read_transcript"]

TRANSCRIPT_FORMATS: Final = ("claude-code", "codex", "openhands", "openai", "anthropic")
"""The formats ``read_transcript`` reads (besides ``"auto"``)."""

_READERS: Final[dict[str, Callable[[Transcript], list[ImportedSession]]]] = {
    "claude-code": read_claude_code,
    "codex": read_codex,
    "openhands": read_openhands,
    "openai": lambda t: read_chat(t, "openai"),
    "anthropic": lambda t: read_chat(t, "anthropic"),
}


def read_transcript(path: str | Path, format: str = "auto") -> list[ImportedSession]:
    """The sessions in the transcript at ``path``, main session first.

    ``TranscriptError`` (with ``path`` and ``line``) when the file cannot be read,
    is not in ``format``, or (with ``"auto"``) its format cannot be told.
    """
    if format != "auto" and format not in _READERS:
        raise TranscriptError(
            str(path),
            None,
            f"unknown transcript format {format!r}; use auto or one of {', '.join(_READERS)}",
        )
    transcript = load_transcript(path)
    if not transcript.records:
        raise TranscriptError(str(path), None, "is empty: it holds no transcript records")
    chosen = detect_format(transcript) if format == "auto" else format
    return [s for s in _READERS[chosen](transcript) if s.events]


def detect_format(transcript: Transcript) -> str:
    """The format of a loaded transcript; ``TranscriptError`` when it is unknown or
    could be more than one."""
    records = transcript.records
    found = [
        name
        for name, looks in (
            ("claude-code", looks_like_claude_code),
            ("codex", looks_like_codex),
            ("openhands", looks_like_openhands),
        )
        if looks(records)
    ]
    chat = chat_format_of(records)
    if chat == "chat":
        raise transcript.fail(
            None,
            "is a chat request body that fits both openai and anthropic; "
            "pass format='openai' or format='anthropic'",
        )
    if chat is not None:
        found.append(chat)
    if len(found) == 1:
        return found[0]
    if found:
        raise transcript.fail(
            None, f"could be any of {', '.join(found)}; pass the format to read it as"
        )
    raise transcript.fail(
        None,
        "is not a transcript format ctxbudget knows "
        f"({', '.join(TRANSCRIPT_FORMATS)}); pass format= if it is one of them",
    )
