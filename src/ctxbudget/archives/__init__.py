"""The one archive family: originals are stored before anything replaces them.

Enforcement stores a tool output before stubbing it; compaction stores the span it
is about to summarize. ``store`` returns a locator; ``retrieve(locator)`` gives
the same original back.
"""

from ctxbudget.archives.protocol import Archive, AsyncArchive, Original

__all__ = ["Archive", "AsyncArchive", "Original"]
