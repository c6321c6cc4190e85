"""Driver exceptions become the library's store errors; secrets never reach a message."""

from __future__ import annotations

import contextlib
import logging
import random
import shutil
from pathlib import Path

import pytest

from ctxbudget.errors import ConfigError, CtxBudgetError, StoreError
from ctxbudget.ledger import SQLiteLedger, open_async_ledger, open_ledger
from ctxbudget.testing.ledger import user

SECRET = "Tops3cret-Pa55"


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small SQLite ledger to damage: a few sessions, a replace, a few pages."""
    path = tmp_path_factory.mktemp("healthy") / "l.db"
    with SQLiteLedger(path) as ledger:
        for n in range(6):
            ledger.append_many(f"s{n}", [user("x" * 300 + str(i)) for i in range(40)])
        replace = {"op": "replace", "start": 0, "end": 3}
        ledger.append("s0", {**user("sum"), "surface_op": replace, "source_seqs": [0, 1, 2, 3]})
    return path


def _use(path: Path) -> None:
    with SQLiteLedger(path) as ledger:
        ledger.sessions()
        ledger.events("s0")
        ledger.revision("s1")
        ledger.append("s0", user("after"))
        replace = {"op": "replace", "start": 4, "end": 5}
        ledger.append("s0", {**user("sum"), "surface_op": replace, "source_seqs": [4, 5]})


@pytest.mark.parametrize("seed", range(40))
def test_a_corrupt_sqlite_file_raises_only_store_errors(
    healthy: Path, tmp_path: Path, seed: int
) -> None:
    """Random damage to the file: opening, reading and appending raise CtxBudgetErrors only."""
    path = tmp_path / "damaged.db"
    shutil.copy(healthy, path)
    data = bytearray(path.read_bytes())
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 8)):
        start = rng.randrange(0 if seed % 4 == 0 else 100, len(data))
        for i in range(start, min(len(data), start + rng.randint(1, 64))):
            data[i] = rng.randrange(256)
    path.write_bytes(bytes(data))
    # A typed error is the promise; working on is fine too (damage in unused space).
    with contextlib.suppress(CtxBudgetError):
        _use(path)


def test_a_truncated_file_is_a_store_error(healthy: Path, tmp_path: Path) -> None:
    """Half a database file: a StoreError, not sqlite3.DatabaseError."""
    path = tmp_path / "half.db"
    path.write_bytes(healthy.read_bytes()[: healthy.stat().st_size // 2])
    with pytest.raises(StoreError):
        _use(path)


DSNS = [
    f"postgresql://someone:{SECRET}@127.0.0.1:1/none",
    f"postgresql://someone@127.0.0.1:1/none?password={SECRET}",
    f"host=127.0.0.1 port=1 user=someone password={SECRET} dbname=none",
    f"host=127.0.0.1 port=1 password='{SECRET}' dbname=none",
]


@pytest.mark.parametrize("dsn", DSNS)
def test_secrets_stay_out_of_connection_errors(dsn: str, caplog: pytest.LogCaptureFixture) -> None:
    """An unreachable server: the error names the server, never the password."""
    caplog.set_level(logging.DEBUG)
    with pytest.raises(StoreError) as caught:
        open_ledger(dsn, connect_timeout=2)
    assert SECRET not in str(caught.value)
    assert "127.0.0.1" in str(caught.value)
    assert SECRET not in caplog.text


def test_a_dsn_that_cannot_be_parsed_does_not_echo_it() -> None:
    """A broken keyword DSN: ConfigError without any of its text."""
    with pytest.raises(ConfigError) as caught:
        open_ledger(f"host=127.0.0.1 password={SECRET} port")
    assert SECRET not in str(caught.value)


@pytest.mark.postgres
def test_secrets_stay_out_of_repr_and_store_errors(
    postgres_url: str, postgres_schema: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A connected store (the test server ignores the password) keeps it out of its repr and
    of the errors a broken connection raises, sync and async."""
    import asyncio

    caplog.set_level(logging.DEBUG)
    url = postgres_url.replace("@", f":{SECRET}@", 1) + f"?password={SECRET}"
    ledger = open_ledger(url, schema=postgres_schema)
    assert SECRET not in repr(ledger)
    ledger._conn.close()  # type: ignore[attr-defined]
    with pytest.raises(StoreError) as caught:
        ledger.append("s", user("x"))
    assert SECRET not in str(caught.value)

    async def broken_async() -> str:
        store = await open_async_ledger(url, schema=postgres_schema)
        shown = repr(store)
        await store.aclose()
        with pytest.raises(StoreError) as caught:
            await store.revision("s")
        return shown + str(caught.value)

    assert SECRET not in asyncio.run(broken_async())
    assert SECRET not in caplog.text
