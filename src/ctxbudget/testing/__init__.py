"""Public test doubles for ctxbudget's extension points.

Use them in your own tests as you would use httpx's ``MockTransport``.
"""

from ctxbudget.testing.compaction import (
    AsyncFakeArchive,
    AsyncFakeSummarizer,
    FakeArchive,
    FakeSummarizer,
)

__all__ = [
    "AsyncFakeArchive",
    "AsyncFakeSummarizer",
    "FakeArchive",
    "FakeSummarizer",
]
