"""Reading server-sent events incrementally, as the bytes pass through the proxy."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["SSEReader", "ServerEvent"]


@dataclass(frozen=True, slots=True)
class ServerEvent:
    """One event: its ``event:`` name (``""`` when absent) and its ``data:`` decoded as
    JSON (``None`` for ``[DONE]`` or data that is not JSON)."""

    name: str
    data: Any
    raw: str


class SSEReader:
    """Splits a byte stream into events, whatever the chunk boundaries."""

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, chunk: bytes) -> Iterator[ServerEvent]:
        """The events completed by ``chunk``."""
        buffer = (self._pending + chunk).replace(b"\r\n", b"\n")
        *complete, self._pending = buffer.split(b"\n\n")
        for block in complete:
            event = _parse_block(block.decode("utf-8", errors="replace"))
            if event is not None:
                yield event

    def close(self) -> Iterator[ServerEvent]:
        """An event left without its closing blank line, if any."""
        rest, self._pending = self._pending, b""
        event = _parse_block(rest.decode("utf-8", errors="replace")) if rest.strip() else None
        if event is not None:
            yield event


def _parse_block(block: str) -> ServerEvent | None:
    name, data_lines = "", []
    for line in block.split("\n"):
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "event":
            name = value
        elif field == "data":
            data_lines.append(value)
    if not data_lines:
        return None
    raw = "\n".join(data_lines)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # kept as raw text, as data that is not JSON
        data = None
    return ServerEvent(name, data, raw)
