"""FileArchive and LedgerArchive: originals come back exactly; locators never reach outside."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ctxbudget.archives import (
    Archive,
    AsyncArchive,
    AsyncFileArchive,
    AsyncLedgerArchive,
    FileArchive,
    LedgerArchive,
    Original,
    event_messages,
)
from ctxbudget.content import ImageBlock, Message, TextBlock, ToolCallBlock, UnknownBlock
from ctxbudget.errors import ArchiveError, LocatorError
from ctxbudget.ledger import MemoryLedger, ThreadedAsyncLedger
from ctxbudget.testing import AsyncFakeArchive, FakeArchive
from ctxbudget.testing.ledger import assistant_message, tool_result, user

ORIGINAL = Original(
    "turns",
    (
        Message("user", (TextBlock("héllo 你好 😀"),)),
        Message(
            "assistant",
            (
                ToolCallBlock("c1", "read", '{"path": "a.py"}'),
                ImageBlock({"type": "image", "url": "https://x/y.png"}),
                UnknownBlock({"type": "future", "payload": [1, 2.5, None]}),
            ),
        ),
    ),
    session_id="s",
    seqs=(3, 4),
)


def test_every_archive_speaks_the_one_protocol(tmp_path: Path) -> None:
    ledger = MemoryLedger()
    for archive in (FileArchive(tmp_path), LedgerArchive(ledger, "s"), FakeArchive()):
        assert isinstance(archive, Archive)
    for async_archive in (
        AsyncFileArchive(tmp_path),
        AsyncLedgerArchive(ThreadedAsyncLedger(ledger), "s"),
        AsyncFakeArchive(),
    ):
        assert isinstance(async_archive, AsyncArchive)


def test_file_archive_gives_the_original_back_exactly_and_is_content_addressed(
    tmp_path: Path,
) -> None:
    archive = FileArchive(tmp_path / "originals")
    locator = archive.store(ORIGINAL)
    assert locator == archive.store(ORIGINAL)
    assert archive.retrieve(locator) == ORIGINAL
    assert FileArchive(tmp_path / "originals").retrieve(locator) == ORIGINAL  # a new process
    assert [p.suffix for p in (tmp_path / "originals").iterdir()] == [".json"]  # no temp left


@pytest.mark.parametrize(
    "locator",
    [
        "ctxbudget-archive:../../../../etc/passwd",
        "ctxbudget-archive:/etc/passwd",
        "ctxbudget-archive:0123456789abcdef012/",
        "ctxbudget-archive:0123456789ABCDEF0123",
        "ctxbudget-archive:",
        "../outside.json",
        "ledger:turns:1",
    ],
)
def test_file_archive_refuses_locators_that_could_name_another_path(
    tmp_path: Path, locator: str
) -> None:
    with pytest.raises(LocatorError):
        FileArchive(tmp_path).retrieve(locator)


def test_file_archive_detects_an_original_changed_on_disk(tmp_path: Path) -> None:
    archive = FileArchive(tmp_path)
    locator = archive.store(ORIGINAL)
    (file,) = tmp_path.iterdir()
    file.write_text(file.read_text().replace("héllo", "bye"))
    with pytest.raises(ArchiveError, match="changed after it was stored"):
        archive.retrieve(locator)


def test_file_archive_names_an_unknown_locator(tmp_path: Path) -> None:
    with pytest.raises(LocatorError, match="no original is archived"):
        FileArchive(tmp_path).retrieve("ctxbudget-archive:" + "0" * 20)


def _session(ledger: MemoryLedger, sid: str, word: str) -> list[int]:
    return ledger.append_many(
        sid,
        [
            user(f"{word} question"),
            {"type": "step/start", "data": {"turn": 1, "step": 1}},
            assistant_message(f"{word} answer"),
            {"type": "tool/call", "data": {"call_id": "c1", "name": "grep"}},
            tool_result("c1", f"{word} output"),
            {"type": "step/end", "data": {"turn": 1, "step": 1}},
        ],
    )


def test_ledger_archive_points_at_the_logged_span_and_rebuilds_it_exactly() -> None:
    ledger = MemoryLedger()
    _session(ledger, "s", "mine")
    events = ledger.events("s")
    span = [events[0], events[2], events[4]]
    original = Original("turns", event_messages(span), "s", (0, 2, 4))
    archive = LedgerArchive(ledger, "s")
    locator = archive.store(original)
    assert locator == "ledger:turns:0,2,4"
    assert archive.retrieve(locator) == original
    tool = archive.retrieve("ledger:tool_output:4")
    assert (tool.tool_call_id, tool.tool_name) == ("c1", "grep")


def test_ledger_archive_refuses_an_original_the_ledger_does_not_hold() -> None:
    ledger = MemoryLedger()
    _session(ledger, "s", "mine")
    forged = Original("turns", (Message("user", (TextBlock("forged"),)),), "s", (0,))
    with pytest.raises(ArchiveError, match="not this original"):
        LedgerArchive(ledger, "s").store(forged)
    with pytest.raises(ArchiveError, match="serves session"):
        LedgerArchive(ledger, "s").store(Original("turns", (), "other", (0,)))


def test_a_crafted_ledger_locator_never_reads_another_session() -> None:
    ledger = MemoryLedger()
    _session(ledger, "mine", "mine")
    _session(ledger, "theirs", "secret")
    ledger.append_many("theirs", [user("secret more")] * 4)
    archive = LedgerArchive(ledger, "mine")
    # seqs that exist only in the other session: nothing to read in this one
    with pytest.raises(LocatorError):
        archive.retrieve("ledger:turns:8")
    # seqs both sessions have: only this session's events come back
    back = archive.retrieve("ledger:turns:0,2")
    assert "secret" not in repr(back)
    for crafted in ("ledger:turns:theirs:0", "ledger:turns:../0", "ledger:turns:", "ledger:x:0"):
        with pytest.raises(LocatorError):
            archive.retrieve(crafted)
    with pytest.raises(LocatorError, match="not name surface messages"):
        archive.retrieve("ledger:turns:1")  # a step/start is not an original


def test_async_archives_give_the_same_originals(tmp_path: Path) -> None:
    ledger = MemoryLedger()
    _session(ledger, "s", "mine")

    async def run() -> tuple[Original, Original]:
        files = AsyncFileArchive(tmp_path)
        on_disk = await files.retrieve(await files.store(ORIGINAL))
        logged = AsyncLedgerArchive(ThreadedAsyncLedger(ledger), "s")
        return on_disk, await logged.retrieve("ledger:tool_output:4")

    on_disk, logged = asyncio.run(run())
    assert on_disk == ORIGINAL
    assert logged == LedgerArchive(ledger, "s").retrieve("ledger:tool_output:4")


def test_a_file_archive_on_a_file_path_is_an_archive_error(tmp_path: Path) -> None:
    """A path that is a file (or any host failure) is an ArchiveError saying what to do,
    never a raw OSError, and nothing is written."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("not a directory", "utf-8")
    original = Original("tool_output", (Message("tool", (TextBlock("out"),)),))
    with pytest.raises(ArchiveError, match="give a writable directory"):
        FileArchive(blocker).store(original)
    assert blocker.read_text("utf-8") == "not a directory"
