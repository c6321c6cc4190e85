"""The session ledger: a durable, append-only event log per session.

``open_ledger(url)`` gives a store (``memory://``, ``sqlite:///PATH`` — the default,
``postgresql://…``); every store keeps the same rules (``docs/events.md``) and
passes the same conformance suite (``ctxbudget.testing.ledger``). The event types
it knows are declared once, in ``vocabulary``.
"""

from ctxbudget.errors import (
    ConflictError,
    CorruptEventError,
    EventTooLargeError,
    InvalidEventError,
    InvalidSessionIdError,
    LedgerError,
    StoreError,
    StoreUnavailableError,
)
from ctxbudget.ledger.base import AsyncLedger, Clock, Ledger, LedgerReader, epoch_ms
from ctxbudget.ledger.events import SURFACE_TYPES, AppendableEvent, Event, ReplaceOp, SurfaceOp
from ctxbudget.ledger.memory import MemoryLedger
from ctxbudget.ledger.rules import (
    MAX_EVENT_BYTES,
    MAX_JSON_INTEGER,
    MAX_NESTING,
    MAX_SESSION_ID_LENGTH,
    check_session_id,
)
from ctxbudget.ledger.sqlite import DEFAULT_SQLITE_PATH, SQLiteLedger
from ctxbudget.ledger.threaded import ThreadedAsyncLedger
from ctxbudget.ledger.urls import open_async_ledger, open_ledger
from ctxbudget.ledger.vocabulary import EVENT_FORMAT_VERSION, EVENT_TYPES, EventType, Field

__all__ = [
    "DEFAULT_SQLITE_PATH",
    "EVENT_FORMAT_VERSION",
    "EVENT_TYPES",
    "MAX_EVENT_BYTES",
    "MAX_JSON_INTEGER",
    "MAX_NESTING",
    "MAX_SESSION_ID_LENGTH",
    "SURFACE_TYPES",
    "AppendableEvent",
    "AsyncLedger",
    "Clock",
    "ConflictError",
    "CorruptEventError",
    "Event",
    "EventTooLargeError",
    "EventType",
    "Field",
    "InvalidEventError",
    "InvalidSessionIdError",
    "Ledger",
    "LedgerError",
    "LedgerReader",
    "MemoryLedger",
    "ReplaceOp",
    "SQLiteLedger",
    "StoreError",
    "StoreUnavailableError",
    "SurfaceOp",
    "ThreadedAsyncLedger",
    "check_session_id",
    "epoch_ms",
    "open_async_ledger",
    "open_ledger",
]
