from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.chat_server import ChatServer, chat_server


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with chat_server() as running:
        yield running
