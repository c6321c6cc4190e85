"""``FileArchive``: originals kept as files in one directory.

Each original is one JSON file named by the SHA-256 of its content (the first
``HASH_DIGITS`` hex digits: locators end up in prompts, where every digit costs
tokens), written to a temporary file, flushed to disk and renamed into place: a
crash leaves either the whole file or none, and storing the same original twice
gives the same locator. A locator is data from outside (an agent may send one
back): only ``ctxbudget-archive:`` followed by exactly ``HASH_DIGITS`` lowercase
hex digits is accepted, so no locator names a path outside the directory, and the
file read back must hash to its name.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxbudget.archives.protocol import Original
from ctxbudget.content import message_from_json, message_to_json
from ctxbudget.errors import ArchiveError, LocatorError

__all__ = ["FILE_LOCATOR_PREFIX", "HASH_DIGITS", "AsyncFileArchive", "FileArchive"]

FILE_LOCATOR_PREFIX: Final = "ctxbudget-archive:"
"""Locators look like ``ctxbudget-archive:<20 hex digits>``."""
HASH_DIGITS: Final = 20
"""80 bits of SHA-256: a collision is checked for (never silently overwritten or
confused), and at a million originals its odds are about 1 in 2 * 10^12."""
_HEX: Final = frozenset("0123456789abcdef")


class FileArchive:
    """An ``Archive`` over a directory (created on first store)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"FileArchive({str(self.path)!r})"

    def store(self, original: Original) -> str:
        """Write ``original`` durably; its locator."""
        data = _encode(original)
        digest = hashlib.sha256(data).hexdigest()[:HASH_DIGITS]
        target = self.path / f"{digest}.json"
        try:
            stored = target.read_bytes() if target.exists() else None
            if stored is None:
                self.path.mkdir(parents=True, exist_ok=True)
                _write_durably(target, data)
        except OSError as failure:
            # The host's words (a file where the directory should be, a full disk, a
            # permission) with what to do: an ArchiveError, so a stage never sends a stub.
            raise ArchiveError(
                f"cannot store an original in archive {str(self.path)!r}: "
                f"{failure.strerror or failure}; give a writable directory"
            ) from failure
        if stored is not None and stored != data:
            raise ArchiveError(
                f"archive {str(self.path)!r} already holds another original under {digest}; "
                "nothing was overwritten: use a fresh archive directory"
            )
        return FILE_LOCATOR_PREFIX + digest

    def retrieve(self, locator: str) -> Original:
        """The original stored under ``locator``, exactly as it was stored."""
        digest = _digest(locator)
        try:
            data = (self.path / f"{digest}.json").read_bytes()
        except FileNotFoundError:
            raise LocatorError(
                f"no original is archived under {locator!r} in {str(self.path)!r}; "
                "check that the locator came from this archive"
            ) from None
        if hashlib.sha256(data).hexdigest()[:HASH_DIGITS] != digest:
            raise ArchiveError(
                f"the file of {locator!r} in {str(self.path)!r} was changed after it was "
                "stored; restore it from a backup"
            )
        return _decode(json.loads(data.decode("utf-8")))


class AsyncFileArchive:
    """``FileArchive`` for async hosts; file I/O runs in a worker thread."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.sync = FileArchive(path)

    def __repr__(self) -> str:
        return f"Async{self.sync!r}"

    async def store(self, original: Original) -> str:
        """Same as ``FileArchive.store``."""
        return await asyncio.to_thread(self.sync.store, original)

    async def retrieve(self, locator: str) -> Original:
        """Same as ``FileArchive.retrieve``."""
        return await asyncio.to_thread(self.sync.retrieve, locator)


def _digest(locator: object) -> str:
    if not isinstance(locator, str) or not locator.startswith(FILE_LOCATOR_PREFIX):
        raise LocatorError(
            f"{locator!r} is not a file archive locator; they look like "
            f"{FILE_LOCATOR_PREFIX}<{HASH_DIGITS} hex digits>"
        )
    digest = locator.removeprefix(FILE_LOCATOR_PREFIX)
    if len(digest) != HASH_DIGITS or not set(digest) <= _HEX:
        raise LocatorError(
            f"{locator!r} is not a file archive locator; they look like "
            f"{FILE_LOCATOR_PREFIX}<{HASH_DIGITS} hex digits>"
        )
    return digest


def _encode(original: Original) -> bytes:
    document = {
        "kind": original.kind,
        "messages": [message_to_json(m) for m in original.messages],
        "session_id": original.session_id,
        "seqs": list(original.seqs),
        "tool_call_id": original.tool_call_id,
        "tool_name": original.tool_name,
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _decode(document: dict[str, Any]) -> Original:
    return Original(
        kind=document["kind"],
        messages=tuple(message_from_json(m) for m in document["messages"]),
        session_id=document["session_id"],
        seqs=tuple(document["seqs"]),
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
