"""``DirectoryArchive``: originals kept as files, so nothing a stage replaces is lost.

Each original is one JSON file named by the SHA-256 of its content (the first
``HASH_DIGITS`` hex digits: handles end up in prompts, where every digit costs
tokens), written to a temporary file, flushed to disk and renamed into place: a crash
leaves either the whole file or none, and storing the same original twice gives the
same handle.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxbudget.content import message_from_json, message_to_json
from ctxbudget.enforce.protocols import Original
from ctxbudget.errors import ConfigError

__all__ = ["HANDLE_PREFIX", "DirectoryArchive"]

HANDLE_PREFIX: Final = "ctxbudget-archive:"
"""Handles look like ``ctxbudget-archive:<20 hex digits>``."""
HASH_DIGITS: Final = 20
"""80 bits of SHA-256: a collision is checked for (never silently overwritten or
confused), and at a million originals its odds are about 1 in 2 * 10^12."""


class DirectoryArchive:
    """An ``OriginalsArchive`` over a directory (created on first use)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"DirectoryArchive({str(self.path)!r})"

    def store(self, original: Original) -> str:
        """Write ``original`` durably; return its handle."""
        document = _to_json(original)
        data = json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()[:HASH_DIGITS]
        target = self.path / f"{digest}.json"
        if not target.exists():
            self.path.mkdir(parents=True, exist_ok=True)
            _write_durably(target, data)
        elif target.read_bytes() != data:
            raise ConfigError(
                f"archive {str(self.path)!r} already holds another original under {digest}; "
                "nothing was overwritten: use a fresh archive directory"
            )
        return HANDLE_PREFIX + digest

    def get(self, handle: str) -> Original:
        """The original stored under ``handle``."""
        digest = handle.removeprefix(HANDLE_PREFIX)
        if len(digest) != HASH_DIGITS or any(c not in "0123456789abcdef" for c in digest):
            raise ConfigError(
                f"{handle!r} is not an archive handle; handles look like "
                f"{HANDLE_PREFIX}<{HASH_DIGITS} hex digits>"
            )
        try:
            document = json.loads((self.path / f"{digest}.json").read_text("utf-8"))
        except FileNotFoundError:
            raise ConfigError(
                f"no original is archived under {handle!r} in {str(self.path)!r}; "
                "check the archive directory"
            ) from None
        return _from_json(document)


def _to_json(original: Original) -> dict[str, Any]:
    return {
        "kind": original.kind,
        "messages": [message_to_json(m) for m in original.messages],
        "text": original.text,
        "tool_call_id": original.tool_call_id,
        "tool_name": original.tool_name,
    }


def _from_json(document: dict[str, Any]) -> Original:
    return Original(
        kind=document["kind"],
        messages=tuple(message_from_json(m) for m in document["messages"]),
        text=document["text"],
        tool_call_id=document["tool_call_id"],
        tool_name=document["tool_name"],
    )


def _write_durably(target: Path, data: bytes) -> None:
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
