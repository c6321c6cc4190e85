"""Stores for the ledger tests: a PostgreSQL server when one is reachable."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

DEFAULT_URLS = (
    "postgresql://postgres@127.0.0.1:5432/test",
    "postgresql://root@127.0.0.1:5432/test",
)


def _reachable_url() -> str | None:
    import psycopg

    configured = os.environ.get("CTXBUDGET_TEST_POSTGRES_URL")
    for url in (configured,) if configured else DEFAULT_URLS:
        try:
            psycopg.connect(url, connect_timeout=3).close()
        except psycopg.Error:
            continue
        return url
    return None


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL; skips (or fails with ``CI=true``) when none is reachable."""
    url = _reachable_url()
    if url is None:
        message = "no PostgreSQL server (set CTXBUDGET_TEST_POSTGRES_URL)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url


@pytest.fixture
def postgres_schema(postgres_url: str) -> Iterator[str]:
    """A schema of its own for one test, dropped afterwards."""
    import psycopg

    schema = f"ctxbudget_test_{uuid.uuid4().hex[:12]}"
    yield schema
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
