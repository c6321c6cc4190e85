"""The async ledger conformance suite: what every ``AsyncLedger`` must do.

Subclass ``AsyncLedgerConformance`` and give it a ``make_async_ledger`` fixture that
returns an async factory; each call opens a new handle on the *same*, initially
empty store. The suite closes what it opens::

    class TestMyAsyncLedger(AsyncLedgerConformance):
        @pytest.fixture
        def make_async_ledger(self, tmp_path):
            async def factory():
                return ThreadedAsyncLedger(SQLiteLedger(tmp_path / "events.db"))
            return factory

ctxbudget runs it against ``ThreadedAsyncLedger`` (memory and SQLite) and
``AsyncPostgresLedger``. Each test drives its body with ``asyncio.run``, so no
async pytest plugin is needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ctxbudget.errors import ConfigError, ConflictError, InvalidEventError
from ctxbudget.ledger import AsyncLedger
from ctxbudget.testing.ledger import BRICKS, assistant, replace_event, user

__all__ = ["AsyncLedgerConformance", "AsyncLedgerFactory", "run_with"]

AsyncLedgerFactory = Callable[[], Awaitable[AsyncLedger]]
Opener = Callable[[], Awaitable[AsyncLedger]]


def run_with(factory: AsyncLedgerFactory, body: Callable[[Opener], Awaitable[None]]) -> None:
    """Run ``body(open)`` in a fresh event loop; close every handle it opened."""

    async def main() -> None:
        opened: list[AsyncLedger] = []

        async def open_handle() -> AsyncLedger:
            opened.append(await factory())
            return opened[-1]

        try:
            await body(open_handle)
        finally:
            for ledger in reversed(opened):
                await ledger.aclose()

    asyncio.run(main())


class AsyncLedgerConformance:
    """Behaviour every ``AsyncLedger`` must show. Subclass it; provide ``make_async_ledger``."""

    def test_seqs_count_from_zero_per_session(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """Each session numbers its events 0, 1, 2, … on its own; sessions sort."""

        async def body(open_handle: Opener) -> None:
            ledger = await open_handle()
            assert await ledger.append("b", user("x")) == 0
            assert await ledger.append_many("a", [user("1"), user("2")]) == [0, 1]
            assert await ledger.append("a", user("3")) == 2
            assert (await ledger.revision("a"), await ledger.revision("none")) == (3, 0)
            assert await ledger.sessions() == ["a", "b"]
            assert [e.seq for e in await ledger.events("a", 1)] == [1, 2]

        run_with(make_async_ledger, body)

    def test_events_round_trip(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """Type, data, surface_op and sources come back as sent."""
        data = {"z": 1, "a": [1.5, None, "你好"], "nul": "a\x00b"}

        async def body(open_handle: Opener) -> None:
            ledger = await open_handle()
            await ledger.append("s", {"type": "custom/thing", "data": data})
            await ledger.append_many("s", assistant("hi", source_seqs=[0]))
            first, _, second, _ = await ledger.events("s")
            assert first.to_new() == {"type": "custom/thing", "data": data}
            assert (second.surface_op, second.source_seqs) == ("append", (0,))

        run_with(make_async_ledger, body)

    def test_expected_revision_guards_the_append(
        self, make_async_ledger: AsyncLedgerFactory
    ) -> None:
        """A stale revision raises ConflictError and writes nothing, across handles too."""

        async def body(open_handle: Opener) -> None:
            first, second = await open_handle(), await open_handle()
            await first.append("s", user("a"), expected_revision=0)
            with pytest.raises(ConflictError) as caught:
                await second.append_many("s", [user("b"), user("c")], expected_revision=0)
            assert (caught.value.expected, caught.value.actual) == (0, 1)
            assert await second.revision("s") == 1

        run_with(make_async_ledger, body)

    def test_rules_hold_across_handles(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """A replace is checked against the surface another handle wrote."""

        async def body(open_handle: Opener) -> None:
            first, second = await open_handle(), await open_handle()
            await first.append_many("s", [user("a"), user("b")])
            await second.append("s", replace_event(user("ab"), 0, 1, [0, 1]))
            with pytest.raises(InvalidEventError) as caught:
                await first.append("s", replace_event(user("again"), 0, 1, [0, 1]))
            assert caught.value.rule == "replace-range"
            assert await first.revision("s") == 3

        run_with(make_async_ledger, body)

    @pytest.mark.parametrize(("name", "prefix", "bad", "rule"), BRICKS, ids=[b[0] for b in BRICKS])
    def test_unfoldable_events_are_refused(
        self,
        make_async_ledger: AsyncLedgerFactory,
        name: str,
        prefix: list[Any],
        bad: Any,
        rule: str,
    ) -> None:
        """The same append rules as the sync stores; nothing of a refused batch is stored."""

        async def body(open_handle: Opener) -> None:
            ledger = await open_handle()
            await ledger.append_many("s", prefix)
            with pytest.raises(InvalidEventError) as caught:
                await ledger.append_many("s", [user("fine"), bad])
            assert caught.value.rule == rule
            assert await ledger.revision("s") == len(prefix)

        run_with(make_async_ledger, body)

    def test_read_bounds_are_seqs(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """Out-of-range bounds are clamped as on the sync stores; non-integers are refused."""

        async def body(open_handle: Opener) -> None:
            ledger = await open_handle()
            await ledger.append_many("s", [user("a"), user("b")])
            assert list(await ledger.events("s", 0, -1)) == []
            assert list(await ledger.events("s", 2**63)) == []
            assert [e.seq for e in await ledger.events("s", -3, 2**64)] == [0, 1]
            with pytest.raises(ConfigError):
                await ledger.events("s", "0")  # type: ignore[arg-type]

        run_with(make_async_ledger, body)

    def test_concurrent_appends_all_land(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """Appends gathered on one loop through two handles: gap-free, none lost."""

        async def body(open_handle: Opener) -> None:
            handles = [await open_handle(), await open_handle()]
            writes = [
                h.append("s", user(f"{h is handles[0]}{n}")) for n in range(6) for h in handles
            ]
            seqs = await asyncio.gather(*writes)
            assert sorted(seqs) == list(range(12))
            assert [e.seq for e in await handles[1].events("s")] == list(range(12))

        run_with(make_async_ledger, body)

    def test_empty_batch_writes_nothing(self, make_async_ledger: AsyncLedgerFactory) -> None:
        """An empty batch returns no seqs and creates no session, but checks the revision."""

        async def body(open_handle: Opener) -> None:
            ledger = await open_handle()
            assert await ledger.append_many("s", []) == []
            assert await ledger.sessions() == []
            with pytest.raises(ConflictError):
                await ledger.append_many("s", [], expected_revision=2)

        run_with(make_async_ledger, body)
