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
    transcript = _load(path)
    chosen = _detect(transcript) if format == "auto" else format
    sessions = [s for s in _READERS[chosen](transcript) if s.events]
    if not sessions:
        raise transcript.fail(None, f"holds no messages or calls to import ({_EMPTY[chosen]})")
    return sessions


_EMPTY: Final = {
    "claude-code": "`claude -p --output-format json` without --verbose saves only the result; "
    "use --verbose or stream-json",
    "codex": "the rollout holds no response items",
    "openhands": "no event of the history is a message, an LLM call or an observation",
    "openai": "the body holds no messages",
    "anthropic": "the body holds no messages",
}


def detect_format(path: str | Path) -> str:
    """The format ``read_transcript(path)`` would read the file as; ``TranscriptError``
    when it is unknown or could be more than one."""
    return _detect(_load(path))


def _load(path: str | Path) -> Transcript:
    transcript = load_transcript(path)
    if not transcript.records:
        raise TranscriptError(str(path), None, "is empty: it holds no transcript records")
    return transcript


def _detect(transcript: Transcript) -> str:
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
    chat = chat_format_of(transcript)
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
