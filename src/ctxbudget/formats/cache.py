"""``RequestCache``: the work done on earlier requests, reused while it still applies.

An agent re-sends its whole history with every request, so the same message
dicts are parsed, priced and trimmed again and again. One cache object holds
all of that work (parsed turns, message prices, trimmed turns, never-trim
sections), so the caller decides how much memory it may take and when it is
emptied: pass your own ``RequestCache`` through ``enforce(..., cache=...)`` or
``parse_request(..., cache=...)``, or let both use ``shared_cache()``.

The cache is bounded by an estimate of the bytes its entries keep alive, not by
a number of entries: one 6,000-character tool output weighs as much as a
hundred short replies. When a new entry would pass ``max_bytes`` the oldest
entries go first (insertion order; a hit does not reorder, which keeps hits to
one dictionary look-up).

Entries keyed by an object's identity hold that object, so its id cannot be
reused by another object while the entry lives.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Hashable
from typing import Final

from ctxbudget.errors import ConfigError

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "ENTRY_OVERHEAD_BYTES",
    "RequestCache",
    "shared_cache",
]

DEFAULT_CACHE_BYTES: Final = 256 * 1024 * 1024
"""256 MiB: room for the parsed histories of a few dozen 200k-token agents."""
ENTRY_OVERHEAD_BYTES: Final = 200
"""What an entry costs besides its text: the key, the tuple, the objects it pins."""


class RequestCache:
    """A byte-bounded cache of request-path work, owned by whoever passes it in.

    Thread-safe: look-ups are single dictionary reads; insertions and evictions
    hold a lock.
    """

    __slots__ = ("_bytes", "_entries", "_lock", "max_bytes")

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ConfigError(f"RequestCache max_bytes must be an integer >= 0, not {max_bytes!r}")
        self.max_bytes = max_bytes
        self._entries: dict[Hashable, tuple[object, int]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"RequestCache(max_bytes={self.max_bytes}, entries={len(self._entries)}, "
            f"bytes={self._bytes})"
        )

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes_used(self) -> int:
        """The estimated bytes the entries keep alive."""
        return self._bytes

    def get(self, key: Hashable) -> object | None:
        """The value stored under ``key``, or ``None``."""
        entry = self._entries.get(key)
        return None if entry is None else entry[0]

    def put(self, key: Hashable, value: object, text_chars: int = 0) -> None:
        """Store ``value`` under ``key``; ``text_chars``: the characters of text it holds.

        Strings are counted at one byte per character (most agent text is ASCII;
        Python stores it so) plus ``ENTRY_OVERHEAD_BYTES``. An entry larger than
        the whole cache is not stored.
        """
        size = text_chars + ENTRY_OVERHEAD_BYTES
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                oldest = next(iter(self._entries))
                self._bytes -= self._entries.pop(oldest)[1]

    def clear(self) -> None:
        """Forget everything (a cold start)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


@functools.cache
def shared_cache() -> RequestCache:
    """The process-wide ``RequestCache`` used when a caller passes none."""
    return RequestCache()
