"""Fakes for the request path: originals archive, turn summarizer, event sink."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxbudget.enforce import BudgetEvent, Original, SummaryRequest

__all__ = [
    "AsyncFakeOriginalsArchive",
    "AsyncFakeTurnSummarizer",
    "FakeOriginalsArchive",
    "FakeTurnSummarizer",
    "RecordingSink",
]


@dataclass
class FakeOriginalsArchive:
    """Keeps originals in memory; handles are ``fake://originals/<n>``."""

    originals: list[Original] = field(default_factory=list)
    fail_with: Exception | None = None

    def store(self, original: Original) -> str:
        """Remember ``original`` and return its handle."""
        if self.fail_with is not None:
            raise self.fail_with
        self.originals.append(original)
        return f"fake://originals/{len(self.originals) - 1}"

    def get(self, handle: str) -> Original:
        """The original stored under ``handle``."""
        return self.originals[int(handle.rsplit("/", 1)[1])]


@dataclass
class FakeTurnSummarizer:
    """Answers every request with ``text``; records the requests; ``fail_with`` raises."""

    text: str = "- earlier turns, summarized"
    calls: list[SummaryRequest] = field(default_factory=list)
    fail_with: Exception | None = None

    def summarize(self, request: SummaryRequest) -> str:
        """The fixed summary text."""
        self.calls.append(request)
        if self.fail_with is not None:
            raise self.fail_with
        return self.text


@dataclass
class AsyncFakeOriginalsArchive:
    """``FakeOriginalsArchive`` for ``enforce_async``."""

    inner: FakeOriginalsArchive = field(default_factory=FakeOriginalsArchive)

    async def store(self, original: Original) -> str:
        """Same as ``FakeOriginalsArchive.store``."""
        return self.inner.store(original)


@dataclass
class AsyncFakeTurnSummarizer:
    """``FakeTurnSummarizer`` for ``enforce_async``."""

    inner: FakeTurnSummarizer = field(default_factory=FakeTurnSummarizer)

    async def summarize(self, request: SummaryRequest) -> str:
        """Same as ``FakeTurnSummarizer.summarize``."""
        return self.inner.summarize(request)


@dataclass
class RecordingSink:
    """An event sink that keeps every event, for assertions."""

    events: list[BudgetEvent] = field(default_factory=list)

    def emit(self, event: BudgetEvent) -> None:
        """Keep ``event``."""
        self.events.append(event)

    def names(self) -> list[str]:
        """The names of the events so far, in order."""
        return [event.name for event in self.events]
