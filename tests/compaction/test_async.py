"""AsyncCompactor runs the same steps as Compactor; LedgerArchive serves compaction."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxbudget.archives import AsyncFileArchive, LedgerArchive, event_messages
from ctxbudget.compaction import (
    AsyncCompactor,
    Compacted,
    CompactionConfig,
    CompactionConflictError,
    Compactor,
)
from ctxbudget.errors import SummarizeFailedError
from ctxbudget.ledger import SQLiteLedger, ThreadedAsyncLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.testing import AsyncFakeArchive, AsyncFakeSummarizer, FakeSummarizer
from ctxbudget.tokens import Chars4Counter
from tests.compaction.sessions import conversation, tool_conversation

CONFIG = CompactionConfig(threshold_ratio=0.5, retain_tokens=180)


def ids() -> Callable[[], str]:
    count = iter(range(1000))
    return lambda: f"id-{next(count)}"


def test_async_and_sync_compactors_write_the_same_log(tmp_path: Path) -> None:
    sync_ledger = SQLiteLedger(tmp_path / "sync.sqlite3")
    async_store = SQLiteLedger(tmp_path / "async.sqlite3")
    for ledger in (sync_ledger, async_store):
        conversation(ledger, "s", 4)
    archive_dir = tmp_path / "originals"
    sync_engine = Compactor(
        sync_ledger,
        TokenMeter(sync_ledger, Chars4Counter(), context_window=1000),
        FakeSummarizer("small checkpoint"),
        LedgerArchive.per_session(sync_ledger),
        CONFIG,
        new_id=ids(),
    )
    async_engine = AsyncCompactor(
        ThreadedAsyncLedger(async_store),
        TokenMeter(async_store, Chars4Counter(), context_window=1000),
        AsyncFakeSummarizer(FakeSummarizer("small checkpoint")),
        AsyncFileArchive(archive_dir),
        CONFIG,
        new_id=ids(),
    )
    sync_result = sync_engine.compact_if_needed("s")
    async_result = asyncio.run(async_engine.compact_if_needed("s"))
    assert isinstance(sync_result, Compacted)
    assert isinstance(async_result, Compacted)
    assert sync_result.locator.startswith("ledger:turns:")
    assert async_result.locator.startswith("ctxbudget-archive:")

    def shape(ledger: SQLiteLedger) -> list[tuple[str, int | None]]:
        return [(e.type, len(e.data)) for e in ledger.events("s")]

    assert shape(sync_ledger) == shape(async_store)
    assert sync_result.shadowed_seqs == async_result.shadowed_seqs
    assert asyncio.run(async_engine.select_range("s")) is None


def test_ledger_archive_gives_back_what_a_compaction_shadowed(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "l.sqlite3")
    tool_conversation(ledger, "s")
    engine = Compactor(
        ledger,
        TokenMeter(ledger, Chars4Counter(), context_window=4000),
        FakeSummarizer("small checkpoint"),
        LedgerArchive.per_session(ledger),
        CompactionConfig(retain_tokens=80),
    )
    result = engine.compact_if_needed("s")
    assert isinstance(result, Compacted)
    original = LedgerArchive(ledger, "s").retrieve(result.locator)
    logged = ledger.events("s")
    assert original.messages == event_messages(logged[s] for s in result.shadowed_seqs)
    assert original.seqs == result.shadowed_seqs


def async_engine(store: SQLiteLedger, summarizer: FakeSummarizer) -> AsyncCompactor:
    return AsyncCompactor(
        ThreadedAsyncLedger(store),
        TokenMeter(store, Chars4Counter(), context_window=1000),
        AsyncFakeSummarizer(summarizer),
        AsyncFakeArchive(),
        CONFIG,
    )


def test_an_async_summarizer_failure_is_logged_and_changes_nothing_else(tmp_path: Path) -> None:
    store = SQLiteLedger(tmp_path / "l.sqlite3")
    conversation(store, "s", 4)
    engine = async_engine(store, FakeSummarizer(fail_with=TimeoutError("model timed out")))
    with pytest.raises(SummarizeFailedError, match="model timed out"):
        asyncio.run(engine.compact_if_needed("s"))
    assert [e.type for e in store.events("s", 26)] == ["compaction/start", "compaction/end"]
    assert store.events("s")[-1].data["error"].startswith("summarize_failed: ")


def test_two_async_compactions_of_one_session_land_once(tmp_path: Path) -> None:
    store = SQLiteLedger(tmp_path / "l.sqlite3")
    conversation(store, "s", 4)
    slow = FakeSummarizer("small checkpoint", during=lambda _: time.sleep(0.2))
    engines = [async_engine(store, slow), async_engine(store, slow)]

    async def both() -> list[object]:
        return await asyncio.gather(
            *(engine.compact_if_needed("s") for engine in engines), return_exceptions=True
        )

    outcomes = asyncio.run(both())
    landed = [o for o in outcomes if isinstance(o, Compacted)]
    lost = [o for o in outcomes if isinstance(o, CompactionConflictError)]
    assert (len(landed), len(lost)) == (1, 1)
    types = [e.type for e in store.events("s")]
    assert types.count("compaction/summary") == 1
    assert types.count("compaction/start") == types.count("compaction/end")
