"""Real processes: SIGKILL mid-batch; writers racing on one session, with and without
expected_revision."""

from __future__ import annotations

import collections
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ctxbudget.ledger import Ledger, open_ledger

CHILD = str(Path(__file__).with_name("writer_child.py"))
BATCH = 2000

pytestmark = pytest.mark.slow


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """(url, schema) of a fresh store; schema ``-`` means none."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/ledger.sqlite3", "-"
    url = request.getfixturevalue("postgres_url")
    return url, request.getfixturevalue("postgres_schema")


def open_store(store: tuple[str, str]) -> Ledger:
    url, schema = store
    return open_ledger(url) if schema == "-" else open_ledger(url, schema=schema)


def kill_during_batch(url: str, schema: str, session: str, target: int) -> set[int]:
    """Run a batch writer, SIGKILL it while batch ``target`` is being written; the acks."""
    child = subprocess.Popen(
        [sys.executable, CHILD, "batches", url, schema, session, str(BATCH)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    lines = []
    while not lines or lines[-1] != f"begin {target}\n":
        lines.append(child.stdout.readline())
        assert lines[-1], "the writer died on its own"
    # Inside append_many now; a batch takes tens of milliseconds, the kill lands mid-way
    # (parsing, checking, inserting or committing, depending on the draw).
    time.sleep(random.uniform(0.0, 0.03))
    child.send_signal(signal.SIGKILL)
    child.wait()
    lines += child.stdout.readlines()
    child.stdout.close()
    return {int(line.split()[1]) for line in lines if line.startswith("ack")}


def test_sigkill_mid_batch_loses_nothing_acknowledged(store: tuple[str, str]) -> None:
    """Every acknowledged batch is complete after the kill; no batch is half there."""
    url, schema = store
    open_store(store).close()  # create the table before the child races to do so
    for round_number in range(3):
        session = f"kill-{round_number}"
        acked = kill_during_batch(url, schema, session, target=2)
        with open_store(store) as ledger:
            events = ledger.events(session)
        sizes = collections.Counter(e.data["batch"] for e in events)
        assert [e.seq for e in events] == list(range(len(events)))
        assert acked <= set(sizes)
        assert set(sizes.values()) == {BATCH}
        assert sorted(sizes) == list(range(len(sizes)))
        with open_store(store) as ledger:  # the store takes writes again
            assert ledger.append(session, {"type": "after/kill", "data": {}}) == len(events)


def test_four_racing_writers_leave_a_clean_log(store: tuple[str, str]) -> None:
    """expected_revision + retry: gap-free, duplicate-free, each writer in its own order."""
    url, schema = store
    open_store(store).close()
    count = 25
    children = [
        subprocess.Popen(
            [sys.executable, CHILD, "race", url, schema, "shared", str(writer), str(count)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for writer in range(4)
    ]
    outputs = [child.communicate(timeout=120)[0] for child in children]
    assert all(child.returncode == 0 for child in children), outputs
    with open_store(store) as ledger:
        events = ledger.events("shared")
    assert [e.seq for e in events] == list(range(4 * count))
    written = [(e.data["writer"], e.data["n"]) for e in events]
    assert sorted(written) == [(w, n) for w in range(4) for n in range(count)]
    for writer in range(4):
        assert [n for w, n in written if w == writer] == list(range(count))


def test_eight_plain_writers_never_fail_and_lose_nothing(store: tuple[str, str]) -> None:
    """Writers of one session without expected_revision queue on the session lock: no
    append fails for lack of retries, nothing is lost or duplicated, each writer in order."""
    open_store(store).close()
    url, schema = store
    writers, count = 8, 15
    children = [
        subprocess.Popen(
            [sys.executable, CHILD, "plain", url, schema, "plain", str(w), str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    results = [child.communicate(timeout=120) for child in children]
    assert all(child.returncode == 0 for child in children), [err for _, err in results]
    with open_store(store) as ledger:
        events = ledger.events("plain")
    assert [e.seq for e in events] == list(range(writers * count))
    written = [(e.data["writer"], e.data["n"]) for e in events]
    assert sorted(written) == [(w, n) for w in range(writers) for n in range(count)]
    for writer in range(writers):
        assert [n for w, n in written if w == writer] == list(range(count))
