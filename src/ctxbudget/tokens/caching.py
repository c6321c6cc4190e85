"""``CachingCounter``: memoize another counter by content."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ctxbudget.tokens.base import TokenCounter

__all__ = ["CachingCounter"]


class CachingCounter:
    """Remembers the counts of the last ``maxsize`` distinct texts, so re-pricing an
    unchanged message costs one dictionary look-up.

    Least recently used texts are dropped first. Safe to share between threads: the
    cache is guarded by a lock, and the wrapped counter runs outside it (two threads may
    both count a new text once; both get the same answer).
    """

    def __init__(self, counter: TokenCounter, maxsize: int = 4096) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be >= 1, got {maxsize}")
        self.counter = counter
        self.maxsize = maxsize
        self.name = counter.name
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        """The wrapped counter's count of ``text``, from the cache when it is there."""
        with self._lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                self.hits += 1
                return cached
        tokens = self.counter.count(text)
        with self._lock:
            self.misses += 1
            self._cache[text] = tokens
            self._cache.move_to_end(text)
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)
        return tokens

    def clear(self) -> None:
        """Forget every cached count."""
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        return len(self._cache)

    def __repr__(self) -> str:
        return f"CachingCounter({self.counter!r}, maxsize={self.maxsize})"
