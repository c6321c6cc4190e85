"""Store-specific behaviour: URLs, SQLite settings, corrupt rows, unreachable servers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ctxbudget.errors import ConfigError, CorruptEventError, StoreUnavailableError
from ctxbudget.ledger import MemoryLedger, SQLiteLedger, open_ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.testing.ledger import user
from ctxbudget.tokens import Chars4Counter


def test_no_url_means_a_sqlite_file_under_dot_ctxbudget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zero-config default is durable: ./.ctxbudget/ledger.sqlite3."""
    monkeypatch.chdir(tmp_path)
    with open_ledger() as ledger:
        ledger.append("s", user("hi"))
    assert (tmp_path / ".ctxbudget" / "ledger.sqlite3").exists()


def test_urls_pick_the_store(tmp_path: Path) -> None:
    """memory://, sqlite:///relative and sqlite:////absolute."""
    assert isinstance(open_ledger("memory://"), MemoryLedger)
    with open_ledger(f"sqlite:///{tmp_path}/x.db") as ledger:
        assert isinstance(ledger, SQLiteLedger)
        assert ledger.path == tmp_path / "x.db"


@pytest.mark.parametrize("url", ["mysql://x", "sqlite://", "sqlite:relative", "nothing"])
def test_unknown_urls_are_config_errors(url: str) -> None:
    """A URL no store understands says which ones exist."""
    with pytest.raises(ConfigError, match="sqlite:///PATH"):
        open_ledger(url)


def test_sqlite_commits_are_durable(tmp_path: Path) -> None:
    """WAL journal and synchronous=FULL: an acknowledged commit survives power loss."""
    with SQLiteLedger(tmp_path / "l.db") as ledger:
        conn = ledger._conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_a_file_that_is_not_sqlite_is_unavailable(tmp_path: Path) -> None:
    """Opening garbage fails at once with a clear error."""
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailableError, match="SQLite"):
        SQLiteLedger(path)


def _damage(path: Path, statement: str) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(statement)
    conn.close()


@pytest.mark.parametrize(
    ("statement", "detail"),
    [
        ("UPDATE ctxbudget_events SET data = '{broken' WHERE seq = 1", "Expecting"),
        ("UPDATE ctxbudget_events SET data = '[1]' WHERE seq = 1", "not a JSON object"),
        ("UPDATE ctxbudget_events SET surface_op = '\"sideways\"' WHERE seq = 1", "surface_op"),
        ("DELETE FROM ctxbudget_events WHERE seq = 1", "missing"),
    ],
)
def test_a_corrupt_row_names_session_and_seq(tmp_path: Path, statement: str, detail: str) -> None:
    """Reading and metering stop at the damaged row with its seq; appending reads no old
    rows (the state row carries what the rules need), so it goes on."""
    path = tmp_path / "l.db"
    with SQLiteLedger(path) as ledger:
        ledger.append_many("sess", [user("a"), user("b"), user("c")])
    _damage(path, statement)
    with SQLiteLedger(path) as ledger:
        with pytest.raises(CorruptEventError, match=detail) as caught:
            ledger.events("sess")
        assert (caught.value.session_id, caught.value.seq) == ("sess", 1)
        assert "'sess'" in str(caught.value)
        with pytest.raises(CorruptEventError):
            TokenMeter(ledger, Chars4Counter()).measure("sess")
        assert ledger.append("sess", user("d")) == 3


@pytest.mark.postgres
def test_a_corrupt_postgres_row_names_session_and_seq(
    postgres_url: str, postgres_schema: str
) -> None:
    """The same check on PostgreSQL."""
    import psycopg

    with open_ledger(postgres_url, schema=postgres_schema) as ledger:
        ledger.append_many("sess", [user("a"), user("b")])
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(
                f'UPDATE "{postgres_schema}".ctxbudget_events SET data = %s WHERE seq = 1',
                ("{broken",),
            )
        with pytest.raises(CorruptEventError) as caught:
            ledger.events("sess")
        assert (caught.value.session_id, caught.value.seq) == ("sess", 1)


def test_an_unreachable_server_is_unavailable() -> None:
    """No server behind the URL: StoreUnavailableError without the password."""
    with pytest.raises(StoreUnavailableError) as caught:
        open_ledger("postgresql://user:secret@127.0.0.1:1/none", connect_timeout=2)
    assert "secret" not in str(caught.value)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_threads_share_one_handle(tmp_path: Path, kind: str) -> None:
    """Threads appending through one handle keep seqs and the surface consistent."""
    from concurrent.futures import ThreadPoolExecutor

    url = "memory://" if kind == "memory" else f"sqlite:///{tmp_path}/t.db"
    with open_ledger(url) as ledger:
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda n: ledger.append("s", user(str(n))), range(200)))
        op = {"op": "replace", "start": 0, "end": 199}
        replace = {**user("all"), "surface_op": op, "source_seqs": list(range(200))}
        assert ledger.append("s", replace) == 200
        assert [e.seq for e in ledger.events("s")] == list(range(201))
