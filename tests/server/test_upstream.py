"""The connection pool the proxy calls providers through."""

from __future__ import annotations

from ctxbudget.server.upstream import upstream_transport

UVICORN_KEEPALIVE_SECONDS = 5.0  # uvicorn's and gunicorn's default idle timeout


def test_idle_connections_are_given_up_before_a_uvicorn_upstream_drops_them() -> None:
    """A pooled connection reused just as the upstream closes it fails the call (a POST is
    not retried), so the pool must let idle connections go before the usual 5 s."""
    pool = upstream_transport()._pool
    assert pool._keepalive_expiry is not None
    assert 0 < pool._keepalive_expiry < UVICORN_KEEPALIVE_SECONDS
