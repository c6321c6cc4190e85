"""The folds a ``TokenMeter`` keeps between reads, bounded by an estimate of their bytes.

A fold is only a cache of the ledger: evicting one loses nothing, the next
``measure`` of that session folds it again from seq 0. The least recently
measured sessions go first, so a meter serving a long tail of sessions holds
the hot ones and a bounded amount of memory.

The size of a fold is estimated, not measured (``sys.getsizeof`` would have to
walk every node): ``FOLD_BYTES`` per session, ``NODE_BYTES`` per surface node,
``CHUNK_BYTES`` per chunk of the open step, and one byte per character of the
request header's JSON (system prompt, tools, message prefix).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

from ctxbudget.errors import ConfigError
from ctxbudget.meter.fold import FoldState, PricedHeader
from ctxbudget.tokens import json_text

__all__ = [
    "CHUNK_BYTES",
    "DEFAULT_FOLD_CACHE_BYTES",
    "FOLD_BYTES",
    "NODE_BYTES",
    "FoldCache",
]

DEFAULT_FOLD_CACHE_BYTES: Final = 64 * 1024 * 1024
"""What a meter keeps of its folds by default (estimated bytes)."""
FOLD_BYTES: Final = 1_024
NODE_BYTES: Final = 128
CHUNK_BYTES: Final = 512


@dataclass(slots=True)
class _Entry:
    state: FoldState
    bytes: int
    header: PricedHeader | None
    header_bytes: int


class FoldCache:
    """Session id -> fold, least recently used first, at most ``max_bytes`` (estimated).

    The session stored last is never evicted by its own store, so one fold larger
    than the whole budget is still kept until another session is measured.
    Not thread-safe: the meter holds its lock around every call.
    """

    def __init__(self, max_bytes: int = DEFAULT_FOLD_CACHE_BYTES) -> None:
        if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes <= 0:
            raise ConfigError(
                f"TokenMeter: fold_cache_bytes ({max_bytes!r}) must be a positive integer"
            )
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        """The estimated size of every fold held."""
        return self._bytes

    def get(self, session_id: str) -> FoldState | None:
        """The session's fold (now the most recently used), or ``None``."""
        entry = self._entries.get(session_id)
        if entry is None:
            return None
        self._entries.move_to_end(session_id)
        return entry.state

    def put(self, session_id: str, state: FoldState) -> None:
        """Keep ``state`` for ``session_id``, evicting cold sessions past the budget."""
        old = self._entries.pop(session_id, None)
        if old is not None:
            self._bytes -= old.bytes
        header_bytes = _header_bytes(state.header, old)
        entry = _Entry(state, _fold_bytes(state, header_bytes), state.header, header_bytes)
        self._entries[session_id] = entry
        self._bytes += entry.bytes
        while self._bytes > self.max_bytes and len(self._entries) > 1:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.bytes


def _header_bytes(header: PricedHeader | None, old: _Entry | None) -> int:
    if header is None:
        return 0
    if old is not None and old.header is header:
        return old.header_bytes  # headers change rarely; size each one once
    h = header.header
    return len(json_text([dict(h.config), h.system, list(h.tools), list(h.message_prefix)]))


def _fold_bytes(state: FoldState, header_bytes: int) -> int:
    chunks = 0
    link = state.step.chunks if state.step is not None else None
    while link is not None:
        chunks += 1
        link = link[1]
    return FOLD_BYTES + NODE_BYTES * len(state.nodes) + CHUNK_BYTES * chunks + header_bytes
