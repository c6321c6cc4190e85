"""The conformance suite, run against each store ctxbudget ships."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxbudget.ledger import Ledger, MemoryLedger, SQLiteLedger, open_ledger
from ctxbudget.testing.ledger import LedgerConformance, LedgerFactory


class TestMemoryLedger(LedgerConformance):
    @pytest.fixture
    def make_ledger(self) -> LedgerFactory:
        shared = MemoryLedger()
        return lambda: shared


class TestSQLiteLedger(LedgerConformance):
    @pytest.fixture
    def make_ledger(self, tmp_path: Path) -> LedgerFactory:
        return lambda: SQLiteLedger(tmp_path / "ledger.sqlite3")


@pytest.mark.postgres
class TestPostgresLedger(LedgerConformance):
    @pytest.fixture
    def make_ledger(self, postgres_url: str, postgres_schema: str) -> LedgerFactory:
        def factory() -> Ledger:
            return open_ledger(postgres_url, schema=postgres_schema)

        return factory
