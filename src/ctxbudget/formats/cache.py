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
from collections import OrderedDict
from collections.abc import Hashable
from typing import Final

from ctxbudget.errors import ConfigError

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "ENTRY_OVERHEAD_BYTES",
    "RequestCache",
    "shared_cache",
]

DEFAULT_CACHE_BYTES: Final = 128 * 1024 * 1024
"""128 MiB: room for the parsed histories of about twenty 200k-token agents."""
ENTRY_OVERHEAD_BYTES: Final = 1_000
"""What an entry costs besides its strings: the key, the parsed objects, the dicts and
tuples it pins (measured with ``tracemalloc`` on parsed agent messages: 0.6-1 kB)."""


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
        # An OrderedDict, not a dict: popping the oldest of a dict is O(n) once many
        # entries have been popped from its front; OrderedDict.popitem is O(1).
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
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

    def put(self, key: Hashable, value: object, text_bytes: int = 0) -> None:
        """Store ``value`` under ``key``; ``text_bytes``: the memory of the strings it pins.

        The entry is charged ``text_bytes`` plus ``ENTRY_OVERHEAD_BYTES``. An entry
        larger than the whole cache is not stored.
        """
        size = text_bytes + ENTRY_OVERHEAD_BYTES
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[key] = (value, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                self._bytes -= self._entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        """Forget everything (a cold start)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


@functools.cache
def shared_cache() -> RequestCache:
    """The process-wide ``RequestCache`` used when a caller passes none."""
    return RequestCache()
