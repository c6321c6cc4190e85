"""``RequestCache``: the work done on earlier requests, reused while it still applies.

An agent re-sends its whole history with every request, so the same message
dicts are parsed, priced and trimmed again and again. One cache object holds
all of that work (parsed turns, message and tool prices, trimmed turns), so the
caller decides how much memory it may take and when it is emptied: pass your
own ``RequestCache`` through ``enforce_budget(..., cache=...)`` or
``parse_request(..., cache=...)``, or let both use ``shared_cache()``.

The cache is bounded by an estimate of the bytes its entries keep alive, not by
a number of entries: one 6,000-character tool output weighs as much as a
hundred short replies. When a new entry would pass ``max_bytes`` the oldest
entries go first (insertion order; a hit does not reorder, which keeps hits to
one dictionary look-up).

Entries keyed by an object's identity hold that object, so its id cannot be
reused by another object while the entry lives.

Entries keyed by content serve callers that build fresh objects for the same
values on every request (a proxy decodes a new body each call). The key is a
digest of the value's JSON text; the entry holds a private copy decoded from
that text, which the caller never sees and so cannot edit, and a hit also
requires that copy to equal the value (so a tuple is not taken for a list, nor
``{1: x}`` for ``{"1": x}``). Whatever is stored was derived from the copy.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Final, TypeAlias

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

    def get_checked(self, key: Hashable, raw: Any) -> object | None:
        """The value stored with ``put_checked`` under ``key`` if ``raw`` is the very
        object it was stored for and holds the very same values (every container and
        leaf checked by identity, so an edit made in place is seen)."""
        entry = self.get(key)
        if type(entry) is not tuple or len(entry) != 3:
            return None
        if entry[0] is not raw or not _unchanged(raw, entry[1]):
            return None
        value: object = entry[2]
        return value

    def put_checked(self, key: Hashable, raw: Any, value: object, text_bytes: int) -> None:
        """Store ``value`` as derived from ``raw`` (plain JSON whose nesting the caller
        has bounded; anything else is not stored)."""
        shape = _shape(raw)
        if shape is not _MISSING:
            self.put(key, (raw, shape, value), text_bytes)

    def content_key(self, value: Any) -> Hashable | None:
        """A key for ``value``'s content, or ``None`` when ``value`` is not JSON
        (nothing is then stored by content).

        A flat object of strings (most chat messages) is keyed by its items, which
        costs no encoding; anything else by a digest of its JSON text. Only called
        on values whose nesting the caller has bounded or that come from a JSON
        decoder (the encoder refuses deeper ones with ``RecursionError``).
        """
        if type(value) is dict:
            items = tuple(value.items())
            if all(type(key) is str and type(item) is str for key, item in items):
                return ("items", items)
        try:
            text = _CONTENT_ENCODER.encode(value)
        except (TypeError, ValueError, RecursionError):
            return None
        return ("json", hashlib.blake2b(text.encode("ascii"), digest_size=16).digest())

    def private_copy(self, value: Any) -> Any:
        """A copy of ``value`` decoded from its JSON text, sharing nothing with it
        (it equals ``value`` only when ``value`` is plain JSON: check before use)."""
        return json.loads(_CONTENT_ENCODER.encode(value))

    def get_by_content(self, key: Hashable, value: Any) -> object | None:
        """The result stored with ``put_by_content`` under ``key`` when its copy equals
        ``value``."""
        entry = self.get(key)
        if not isinstance(entry, _ByContent) or entry.copy != value:
            return None
        return entry.result

    def put_by_content(self, key: Hashable, copy: Any, result: object, text_bytes: int) -> None:
        """Store ``result``, derived from ``copy`` (from ``content_key``), under ``key``;
        the copy is charged too (``2 * text_bytes``)."""
        self.put(key, _ByContent(copy, result), 2 * text_bytes)

    def clear(self) -> None:
        """Forget everything (a cold start)."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0


# A constant, configured once: json.dumps with options builds a new encoder per call.
_CONTENT_ENCODER: Final = json.JSONEncoder(
    ensure_ascii=True, allow_nan=False, check_circular=False, separators=(",", ":")
)


class _ByContent:
    """An entry keyed by content: the private copy it was derived from, and the result."""

    __slots__ = ("copy", "result")

    def __init__(self, copy: Any, result: object) -> None:
        self.copy = copy
        self.result = result


_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_MISSING: Final = object()

# What a value looked like when remembered: a scalar itself, or a container with the
# shapes of its items. Checking a shape costs one identity test per node.
_Shape: TypeAlias = Any


def _shape(value: Any) -> _Shape:
    """The shape of a JSON value, or ``_MISSING`` if it holds something else.

    Only called on values whose nesting the parser has already bounded.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        items = []
        for key, item in value.items():
            shape = _shape(item)
            if shape is _MISSING or type(key) is not str:
                return _MISSING
            items.append((key, shape))
        return (value, tuple(items))
    if kind is list:
        shapes = []
        for item in value:
            shape = _shape(item)
            if shape is _MISSING:
                return _MISSING
            shapes.append(shape)
        return (value, tuple(shapes))
    return _MISSING


def _unchanged(value: Any, shape: _Shape) -> bool:
    """True when ``value`` is the remembered object with the remembered contents."""
    if type(shape) is not tuple:
        return value is shape
    container, items = shape
    if value is not container or len(value) != len(items):
        return False
    # Plain loops: this runs for every node of every message on every request.
    if type(value) is dict:
        get = value.get
        for key, item in items:
            found = get(key, _MISSING)
            if found is not item and (type(item) is not tuple or not _unchanged(found, item)):
                return False
        return True
    for found, item in zip(value, items, strict=True):
        if found is not item and (type(item) is not tuple or not _unchanged(found, item)):
            return False
    return True


@functools.cache
def shared_cache() -> RequestCache:
    """The process-wide ``RequestCache`` used when a caller passes none."""
    return RequestCache()
