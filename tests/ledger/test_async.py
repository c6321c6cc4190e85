"""The async twins share the rules and the concurrency guard of the sync stores."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ctxbudget.errors import ConflictError, InvalidEventError
from ctxbudget.ledger import (
    AsyncLedger,
    MemoryLedger,
    SQLiteLedger,
    ThreadedAsyncLedger,
    open_async_ledger,
)
from ctxbudget.ledger.postgres import AsyncPostgresLedger
from ctxbudget.testing.async_ledger import AsyncLedgerConformance, AsyncLedgerFactory
from ctxbudget.testing.ledger import user


async def exercise(ledger: AsyncLedger) -> None:
    async with ledger:
        assert await ledger.append("s", user("a")) == 0
        assert await ledger.append_many("s", [user("b"), user("c")], expected_revision=1) == [1, 2]
        with pytest.raises(ConflictError):
            await ledger.append("s", user("late"), expected_revision=1)
        with pytest.raises(InvalidEventError):
            await ledger.append("s", {"type": "user/message", "data": {"content": []}})
        op = {"op": "replace", "start": 0, "end": 1}
        await ledger.append("s", {**user("ab"), "surface_op": op, "source_seqs": [0, 1]})
        assert [e.seq for e in await ledger.events("s", 1, 3)] == [1, 2]
        assert await ledger.revision("s") == 4
        assert await ledger.sessions() == ["s"]
        writes = [ledger.append(f"t{i}", user(str(i))) for i in range(8)]
        assert await asyncio.gather(*writes) == [0] * 8


def run(url: str, **options: Any) -> None:
    async def main() -> None:
        await exercise(await open_async_ledger(url, **options))

    asyncio.run(main())


def test_memory_twin() -> None:
    """memory:// runs the sync store in a worker thread."""
    run("memory://")


def test_sqlite_twin(tmp_path: Path) -> None:
    """sqlite:// runs the sync store in a worker thread."""
    run(f"sqlite:///{tmp_path}/a.db")


@pytest.mark.postgres
def test_postgres_twin(postgres_url: str, postgres_schema: str) -> None:
    """PostgreSQL uses psycopg's AsyncConnection."""
    run(postgres_url, schema=postgres_schema)


@pytest.mark.postgres
def test_postgres_twin_races_on_the_primary_key(postgres_url: str, postgres_schema: str) -> None:
    """Two async handles writing one session without expected_revision both land, in order."""

    async def main() -> list[int]:
        handles = [await open_async_ledger(postgres_url, schema=postgres_schema) for _ in range(2)]
        try:
            jobs: list[Callable[[], Any]] = [
                lambda h=h, i=i: h.append("s", user(f"{i}")) for i in range(10) for h in handles
            ]
            await asyncio.gather(*(job() for job in jobs))
            return [e.seq for e in await handles[0].events("s")]
        finally:
            for handle in handles:
                await handle.aclose()

    assert asyncio.run(main()) == list(range(20))


class TestThreadedMemoryLedger(AsyncLedgerConformance):
    @pytest.fixture
    def make_async_ledger(self) -> AsyncLedgerFactory:
        shared = MemoryLedger()

        async def factory() -> AsyncLedger:
            return ThreadedAsyncLedger(shared)  # closing a memory store keeps it

        return factory


class TestThreadedSQLiteLedger(AsyncLedgerConformance):
    @pytest.fixture
    def make_async_ledger(self, tmp_path: Path) -> AsyncLedgerFactory:
        async def factory() -> AsyncLedger:
            return ThreadedAsyncLedger(SQLiteLedger(tmp_path / "a.db"))

        return factory


@pytest.mark.postgres
class TestAsyncPostgresLedger(AsyncLedgerConformance):
    @pytest.fixture
    def make_async_ledger(self, postgres_url: str, postgres_schema: str) -> AsyncLedgerFactory:
        async def factory() -> AsyncLedger:
            return await AsyncPostgresLedger.connect(postgres_url, schema=postgres_schema)

        return factory
