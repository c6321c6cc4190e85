"""Compaction across processes: two at once on one session (SQLite and PostgreSQL), and a
process killed mid-summary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxbudget.archives import FileArchive, event_messages
from ctxbudget.compaction import Compacted, CompactionConfig, Compactor
from ctxbudget.ledger import Ledger, open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.testing import FakeSummarizer
from ctxbudget.tokens import Chars4Counter
from tests.compaction.sessions import conversation

ROOT = Path(__file__).resolve().parents[2]
SID = "shared"

pytestmark = pytest.mark.slow


def child(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.compaction.compact_child", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def check_log(ledger: Ledger, before: int) -> None:
    events = ledger.events(SID)
    assert [e.seq for e in events] == list(range(len(events)))  # no event lost, no gap
    starts = {e.data["compaction_id"] for e in events if e.type == "compaction/start"}
    ends = {e.data["compaction_id"] for e in events if e.type == "compaction/end"}
    assert starts == ends  # every lock of a live process was closed
    assert len(events) > before


def race(url: str, schema: str, open_store: Callable[[], Ledger], tmp_path: Path) -> None:
    with open_store() as ledger:
        conversation(ledger, SID, 4)
        before = ledger.revision(SID)
    go = tmp_path / "go"
    procs = [
        child("compact", url, schema, SID, str(tmp_path / "a"), str(go), "1.0") for _ in range(2)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("go.ready.*"))) < 2:  # both processes up and waiting
        assert time.monotonic() < deadline
        time.sleep(0.01)
    go.write_text("go")
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out)["outcome"])
    assert sorted(outputs) == ["compacted", "conflict"]
    with open_store() as ledger:
        events = ledger.events(SID)
        assert [e.type for e in events].count("compaction/summary") == 1
        assert [e.type for e in events].count("user/message") == 5  # 4 users + 1 checkpoint
        check_log(ledger, before)


def test_two_processes_on_sqlite_exactly_one_replacement_lands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    race(url, "-", lambda: open_ledger(url), tmp_path)


@pytest.mark.postgres
def test_two_processes_on_postgres_exactly_one_replacement_lands(
    postgres_url: str, postgres_schema: str, tmp_path: Path
) -> None:
    race(
        postgres_url,
        postgres_schema,
        lambda: open_ledger(postgres_url, schema=postgres_schema),
        tmp_path,
    )


def test_a_process_killed_while_summarizing_leaves_an_inert_lock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    archive_dir = tmp_path / "originals"
    with open_ledger(url) as ledger:
        conversation(ledger, SID, 4)
        before = ledger.revision(SID)
    mark = tmp_path / "summarizing"
    proc = child("hang", url, "-", SID, str(archive_dir), str(mark))
    deadline = time.monotonic() + 30
    while not mark.exists():
        assert time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=10)  # reaps it and closes its pipes
    assert proc.returncode == -signal.SIGKILL
    with open_ledger(url) as ledger:
        events = ledger.events(SID)
        assert [e.type for e in events[before:]] == ["compaction/start"]  # the dead lock
        meter = TokenMeter(ledger, Chars4Counter(), context_window=1000)
        archive = FileArchive(archive_dir)
        config = CompactionConfig(threshold_ratio=0.5, retain_tokens=180)
        engine = Compactor(ledger, meter, FakeSummarizer("small checkpoint"), archive, config)
        result = engine.compact_if_needed(SID)
        assert isinstance(result, Compacted)
        logged = ledger.events(SID)
        for event in logged:
            if event.type == "compaction/summary":
                original = archive.retrieve(event.data["locator"])
                shadowed = [logged[s] for s in event.data["shadowed_seqs"]]
                assert original.messages == event_messages(shadowed)
