"""Summaries of re-sent spans, computed once: a summarizer wrapper with a bounded cache.

An agent re-sends the same older turns on every call, so the enforcement
``summarize`` stage would summarize the same span again and again. The cache keys
each summary by the content of the request (every field, messages as JSON), so
a span seen before costs nothing; it holds at most ``max_bytes`` of keys and
summaries, evicting the least recently used. The caller owns the cache.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
from collections import OrderedDict
from typing import Any

from ctxbudget.content import Message, message_to_json

__all__ = ["SpanSummaryCache", "span_key"]


def _plain(value: Any) -> Any:
    if isinstance(value, Message):
        return message_to_json(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def span_key(request: Any) -> str:
    """The cache key of a summary request: SHA-256 of all its fields as JSON."""
    if dataclasses.is_dataclass(request) and not isinstance(request, type):
        fields = {f.name: _plain(getattr(request, f.name)) for f in dataclasses.fields(request)}
    else:
        fields = {"request": repr(request)}
    text = json.dumps(fields, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SpanSummaryCache:
    """An async summarizer that asks ``summarizer`` (sync or async) only for spans
    it has not summarized yet. ``hits`` and ``misses`` count the answers."""

    def __init__(self, summarizer: Any, max_bytes: int) -> None:
        self._summarizer = summarizer
        self._max_bytes = max_bytes
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    async def summarize(self, request: Any) -> str:
        """The summary of ``request``, from the cache when the span was seen."""
        key = span_key(request)
        cached = self._entries.get(key)
        if cached is not None:
            self._entries.move_to_end(key)
            self.hits += 1
            return cached
        answer = self._summarizer.summarize(request)
        if inspect.isawaitable(answer):
            answer = await answer
        self.misses += 1
        if isinstance(answer, str):
            self._keep(key, answer)
        return answer  # type: ignore[no-any-return]

    def _keep(self, key: str, summary: str) -> None:
        size = len(key) + len(summary.encode("utf-8"))
        if size > self._max_bytes:
            return
        self._entries[key] = summary
        self._bytes += size
        while self._bytes > self._max_bytes:
            old_key, old = self._entries.popitem(last=False)
            self._bytes -= len(old_key) + len(old.encode("utf-8"))

    @property
    def size_bytes(self) -> int:
        """Bytes the cached keys and summaries take."""
        return self._bytes
