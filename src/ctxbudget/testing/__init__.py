"""Public test doubles for ctxbudget's extension points.

Use them in your own tests as you would use httpx's ``MockTransport``.
``FakeSummarizer`` / ``FakeArchive`` stand in for the one ``Summarizer`` and
``Archive``; ``FakeItem*`` for the kernel's item-level protocols.
``LedgerConformance`` and ``AsyncLedgerConformance`` (the suites every ledger store
passes) need pytest and are imported on first use.
"""

from typing import Any

from ctxbudget.testing.archives import AsyncFakeArchive, FakeArchive
from ctxbudget.testing.enforce import RecordingSink
from ctxbudget.testing.kernel import (
    AsyncFakeItemArchive,
    AsyncFakeItemSummarizer,
    FakeItemArchive,
    FakeItemSummarizer,
)
from ctxbudget.testing.summaries import AsyncFakeSummarizer, FakeSummarizer

__all__ = [
    "AsyncFakeArchive",
    "AsyncFakeItemArchive",
    "AsyncFakeItemSummarizer",
    "AsyncFakeSummarizer",
    "AsyncLedgerConformance",
    "FakeArchive",
    "FakeItemArchive",
    "FakeItemSummarizer",
    "FakeSummarizer",
    "LedgerConformance",
    "RecordingSink",
]


def __getattr__(name: str) -> Any:
    # Lazy so that importing ctxbudget.testing does not require pytest.
    if name == "LedgerConformance":
        from ctxbudget.testing.ledger import LedgerConformance

        return LedgerConformance
    if name == "AsyncLedgerConformance":
        from ctxbudget.testing.async_ledger import AsyncLedgerConformance

        return AsyncLedgerConformance
    raise AttributeError(f"module 'ctxbudget.testing' has no attribute {name!r}")
