"""``ctxbudget serve`` as a user starts it: one process, and workers sharing PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from ctxbudget.testing.provider import StubProvider, free_port, serve_in_thread
from tests.ledger.conftest import postgres_url  # noqa: F401  (fixture)


@contextmanager
def serve(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    port = free_port()
    entry = "from ctxbudget.cli import main; main()"
    command = [sys.executable, "-c", entry, "serve", "--port", str(port), *args]
    process = subprocess.Popen(
        command, env={**os.environ, **(env or {})}, stderr=subprocess.PIPE, text=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(
                    f"serve exited: {process.stderr.read() if process.stderr else ''}"
                )
            try:
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(20)
        if process.stderr:
            process.stderr.close()


@pytest.mark.slow
@pytest.mark.postgres
def test_serve_with_two_workers_enforces_and_shares_one_postgresql_ledger(
    postgres_url: str,  # noqa: F811
) -> None:
    import psycopg

    schema = f"ctxbudget_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    ledger = f"{postgres_url}?options=-csearch_path%3D{schema}"
    stub = StubProvider()
    try:
        with (
            serve_in_thread(stub.app()) as stub_url,
            serve(
                *("--workers", "2", "--ledger", ledger, "--upstream-openai", stub_url + "/v1"),
                *("--max-input", "2000"),
                env={"CTXBUDGET_API_TOKEN": "service-token"},
            ) as url,
        ):
            big = {"model": "m", "messages": [{"role": "user", "content": "x " * 8000}]}
            refused = httpx.post(url + "/v1/chat/completions", json=big)
            assert refused.status_code == 400
            assert refused.json()["error"]["code"] == "context_length_exceeded"
            assert httpx.get(url + "/sessions").status_code == 401  # the token from the env
            messages = [{"role": "user", "content": "task"}]
            bearer = {"authorization": "Bearer service-token"}
            with httpx.Client(timeout=10, headers=bearer) as client:
                for turn in range(8):
                    # A fresh connection each time, so the calls spread over the workers.
                    answer = httpx.post(
                        url + "/v1/chat/completions",
                        json={"model": "m", "messages": messages},
                        headers={"x-ctxbudget-session": "shared", "connection": "close"},
                    )
                    assert answer.status_code == 200, answer.text
                    reply = answer.json()["choices"][0]["message"]["content"]
                    messages += [
                        {"role": "assistant", "content": reply},
                        {"role": "user", "content": f"turn {turn}"},
                    ]
                # Another worker may still be logging the last call: a read right after an
                # answer is only guaranteed to see it in the worker that answered.
                deadline = time.monotonic() + 10
                while True:
                    session = client.get(url + "/sessions/shared").json()
                    surface = [e for e in session["history"] if "surface_op" in e]
                    if len(surface) >= 16 or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
        assert len(surface) == 16  # every message once, whichever worker logged it
        assert all(e["type"] != "context/message" for e in surface)
        assert session["measurement"]["baseline"]["kind"] == "usage"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
