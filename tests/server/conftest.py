"""A stub provider and proxies on 127.0.0.1, driven by the official SDKs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from ctxbudget.enforce import BudgetConfig
from ctxbudget.server import ServerSettings, create_app
from ctxbudget.testing.provider import StubProvider, serve_in_thread


@dataclass
class Proxy:
    """A running proxy: its URL and a client for its service endpoints."""

    url: str
    settings: ServerSettings
    http: httpx.Client

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.get(self.url + path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.post(self.url + path, **kwargs)

    def session(self, session_id: str) -> dict[str, Any]:
        answer = self.get(f"/sessions/{session_id}")
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One HTTP client for the module's tests and SDKs (building one costs ~0.1 s)."""
    with httpx.Client(timeout=10) as client:
        yield client


@pytest.fixture(scope="module")
def stub() -> Iterator[tuple[StubProvider, str]]:
    provider = StubProvider(slow_seconds=1.0)
    with serve_in_thread(provider.app()) as url:
        yield provider, url


MakeProxy = Callable[..., Proxy]
SHORT_UPSTREAM_TIMEOUT_S = 0.3
"""Below the stub's ``slow_seconds``: a proxy with it answers ``stub-slow`` with a 504."""

SDK = TypeVar("SDK")


def sdk_connector(
    sdk: Callable[..., SDK], key: str, http_client: Any, path: str = ""
) -> Callable[..., SDK]:
    """``connect(proxy, session=None)``: an official SDK client (``openai.OpenAI``,
    ``anthropic.Anthropic``) on ``proxy.url + path``, naming the session when given, with
    no retries (a test sees every answer) and the module's shared HTTP client."""

    def connect(proxy: Proxy, session: str | None = None) -> SDK:
        headers = {"X-Ctxbudget-Session": session} if session else None
        return sdk(
            api_key=key,
            base_url=proxy.url + path,
            default_headers=headers,
            max_retries=0,
            http_client=http_client,
        )

    return connect


@contextmanager
def proxies(stub_url: str, directory: Path, http: httpx.Client) -> Iterator[MakeProxy]:
    """Starts proxies in front of the stub (keyword arguments go to ``ServerSettings``);
    stops them all at the end."""
    with ExitStack() as stack:
        count = 0

        def start(*, summarizer: Any = None, **options: Any) -> Proxy:
            nonlocal count
            count += 1
            options.setdefault("upstreams", {"openai": stub_url + "/v1", "anthropic": stub_url})
            options.setdefault("ledger_url", f"sqlite:///{directory}/ledger-{count}.sqlite")
            options.setdefault("budget", BudgetConfig(max_input_tokens=100_000))
            # Long enough for a busy 2-core machine, where a stub's answer once took over
            # 0.5 s between its headers and its body; the tests of a timeout start a proxy
            # with a short one of their own (``SHORT_UPSTREAM_TIMEOUT_S``).
            options.setdefault("upstream_timeout_s", 5.0)
            settings = ServerSettings(**options)
            url = stack.enter_context(serve_in_thread(create_app(settings, summarizer=summarizer)))
            return Proxy(url, settings, http)

        yield start


@pytest.fixture
def make_proxy(
    stub: tuple[StubProvider, str], tmp_path: Path, http: httpx.Client
) -> Iterator[MakeProxy]:
    """Start a proxy of the test's own (its settings as keyword arguments)."""
    with proxies(stub[1], tmp_path, http) as start:
        yield start


@pytest.fixture(scope="module")
def proxy(
    stub: tuple[StubProvider, str], tmp_path_factory: pytest.TempPathFactory, http: httpx.Client
) -> Iterator[Proxy]:
    """A proxy with a 100K-token budget in front of the stub, shared by a module's tests
    (each test uses sessions of its own)."""
    with proxies(stub[1], tmp_path_factory.mktemp("proxy"), http) as start:
        yield start()
