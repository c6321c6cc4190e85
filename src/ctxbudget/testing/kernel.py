"""Fakes for the kernel's item-level ``ItemArchive`` and ``ItemSummarizer`` (sync and async)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ctxbudget.kernel import Item, Locator, Summary

__all__ = [
    "AsyncFakeItemArchive",
    "AsyncFakeItemSummarizer",
    "FakeItemArchive",
    "FakeItemSummarizer",
]


@dataclass
class FakeItemArchive:
    """Keeps archived batches in memory; ``fail_with`` makes every call raise it."""

    batches: list[tuple[Item, ...]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    fail_with: Exception | None = None

    def archive(self, items: Sequence[Item]) -> Locator:
        """Remember ``items`` and return ``fake://archive/<n>``."""
        self.calls.append("archive")
        if self.fail_with is not None:
            raise self.fail_with
        self.batches.append(tuple(items))
        return Locator(f"fake://archive/{len(self.batches) - 1}")

    def get(self, locator: Locator) -> tuple[Item, ...]:
        """The batch stored under ``locator``."""
        return self.batches[int(locator.rsplit("/", 1)[1])]


@dataclass
class FakeItemSummarizer:
    """Summarizes to ``"summary of <ids>"`` costing ``tokens``; ``fail_with`` makes it raise."""

    tokens: int = 10
    calls: list[tuple[Item, ...]] = field(default_factory=list)
    fail_with: Exception | None = None

    def summarize(self, leading: Sequence[Item]) -> Summary:
        """A deterministic summary naming the summarized ids."""
        self.calls.append(tuple(leading))
        if self.fail_with is not None:
            raise self.fail_with
        return Summary(f"summary of {', '.join(i.id for i in leading)}", self.tokens)


@dataclass
class AsyncFakeItemArchive:
    """``FakeItemArchive`` for ``apply_async``."""

    inner: FakeItemArchive = field(default_factory=FakeItemArchive)

    async def archive(self, items: Sequence[Item]) -> Locator:
        """Same as ``FakeItemArchive.archive``."""
        return self.inner.archive(items)


@dataclass
class AsyncFakeItemSummarizer:
    """``FakeItemSummarizer`` for ``apply_async``."""

    inner: FakeItemSummarizer = field(default_factory=FakeItemSummarizer)

    async def summarize(self, leading: Sequence[Item]) -> Summary:
        """Same as ``FakeItemSummarizer.summarize``."""
        return self.inner.summarize(leading)
