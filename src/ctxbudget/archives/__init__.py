"""The one archive family: originals are stored before anything replaces them.

Enforcement stores a tool output before stubbing it; compaction stores the span it
is about to summarize. ``store`` returns a locator; ``retrieve(locator)`` gives
the same original back. ``FileArchive`` keeps originals as content-addressed
files; ``LedgerArchive`` points at the events the ledger already keeps.
A locator is data from outside: neither archive lets one read outside itself.
"""

from ctxbudget.archives.files import (
    FILE_LOCATOR_PREFIX,
    HASH_DIGITS,
    AsyncFileArchive,
    FileArchive,
)
from ctxbudget.archives.ledger import LEDGER_LOCATOR_PREFIX, AsyncLedgerArchive, LedgerArchive
from ctxbudget.archives.projection import event_message, event_messages
from ctxbudget.archives.protocol import Archive, AsyncArchive, Original

__all__ = [
    "FILE_LOCATOR_PREFIX",
    "HASH_DIGITS",
    "LEDGER_LOCATOR_PREFIX",
    "Archive",
    "AsyncArchive",
    "AsyncFileArchive",
    "AsyncLedgerArchive",
    "FileArchive",
    "LedgerArchive",
    "Original",
    "event_message",
    "event_messages",
]
