"""Public test doubles for ctxbudget's extension points.

Use them in your own tests as you would use httpx's ``MockTransport``.
``LedgerConformance`` and ``AsyncLedgerConformance`` (the suites every ledger store
passes) need pytest and are imported on first use.
"""

from typing import Any

from ctxbudget.testing.compaction import (
    AsyncFakeArchive,
    AsyncFakeSummarizer,
    FakeArchive,
    FakeSummarizer,
)
from ctxbudget.testing.enforce import (
    AsyncFakeOriginalsArchive,
    AsyncFakeTurnSummarizer,
    FakeOriginalsArchive,
    FakeTurnSummarizer,
    RecordingSink,
)

__all__ = [
    "AsyncFakeArchive",
    "AsyncFakeOriginalsArchive",
    "AsyncFakeSummarizer",
    "AsyncFakeTurnSummarizer",
    "AsyncLedgerConformance",
    "FakeArchive",
    "FakeOriginalsArchive",
    "FakeSummarizer",
    "FakeTurnSummarizer",
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
