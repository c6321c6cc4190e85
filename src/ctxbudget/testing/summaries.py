"""The fake ``Summarizer`` (and its async twin) for tests of compaction and enforcement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ctxbudget.summaries import SummaryRequest

__all__ = ["AsyncFakeSummarizer", "FakeSummarizer"]


@dataclass
class FakeSummarizer:
    """Answers every request with ``text`` and records the requests.

    ``fail_with`` makes every call raise it; ``during`` runs inside each call before
    it answers (to append to a ledger mid-summary, say, or to count calls).
    """

    text: str = "- earlier turns, summarized"
    calls: list[SummaryRequest] = field(default_factory=list)
    fail_with: BaseException | None = None
    during: Callable[[SummaryRequest], None] | None = None

    def summarize(self, request: SummaryRequest) -> str:
        """The fixed summary text."""
        self.calls.append(request)
        if self.during is not None:
            self.during(request)
        if self.fail_with is not None:
            raise self.fail_with
        return self.text


@dataclass
class AsyncFakeSummarizer:
    """``FakeSummarizer`` for async hosts; ``inner`` holds the settings and the calls."""

    inner: FakeSummarizer = field(default_factory=FakeSummarizer)

    async def summarize(self, request: SummaryRequest) -> str:
        """Same as ``FakeSummarizer.summarize``."""
        return self.inner.summarize(request)
