from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.chat_server import ChatServer, chat_server
from tests.ledger.conftest import postgres_schema, postgres_url

__all__ = ["postgres_schema", "postgres_url"]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with chat_server() as running:
        yield running
