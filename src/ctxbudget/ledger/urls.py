"""``open_ledger(url)``: pick the store from a URL, as a database client would."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ctxbudget.errors import ConfigError
from ctxbudget.ledger.base import AsyncLedger, Ledger
from ctxbudget.ledger.memory import MemoryLedger
from ctxbudget.ledger.sqlite import DEFAULT_SQLITE_PATH, SQLiteLedger
from ctxbudget.ledger.threaded import ThreadedAsyncLedger

__all__ = ["open_async_ledger", "open_ledger"]

_SCHEMES = "memory://, sqlite:///PATH, postgresql://… or a PostgreSQL key=value DSN"


def open_ledger(url: str | None = None, **options: Any) -> Ledger:
    """The ledger a URL names; with no URL, a SQLite file under ``./.ctxbudget/``.

    ``options`` go to the store (``clock``, ``max_event_bytes``; for PostgreSQL also
    ``schema`` and ``table``).
    """
    if url is None:
        return SQLiteLedger(DEFAULT_SQLITE_PATH, **options)
    scheme = _scheme(url)
    if scheme == "memory":
        return MemoryLedger(**options)
    if scheme == "sqlite":
        return SQLiteLedger(_sqlite_path(url), **options)
    from ctxbudget.ledger.postgres import PostgresLedger

    return PostgresLedger(url, **options)


async def open_async_ledger(url: str | None = None, **options: Any) -> AsyncLedger:
    """The async twin of ``open_ledger``: native async for PostgreSQL, a worker thread
    for SQLite and memory."""
    if url is not None and _scheme(url) == "postgresql":
        from ctxbudget.ledger.postgres import AsyncPostgresLedger

        return await AsyncPostgresLedger.connect(url, **options)
    return ThreadedAsyncLedger(open_ledger(url, **options))


def _scheme(url: str) -> str:
    if not isinstance(url, str):
        raise ConfigError(f"a ledger URL must be a string ({_SCHEMES}), not {type(url).__name__}")
    if "://" not in url and "=" in url:
        return "postgresql"  # a libpq keyword DSN: "host=… dbname=… password=…"
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:  # "Invalid IPv6 URL": an unclosed "[" in the host
        raise ConfigError(
            f"the ledger URL cannot be parsed (check the brackets around an IPv6 host); "
            f"use {_SCHEMES}"
        ) from None
    if scheme in ("postgres", "postgresql") or scheme.startswith("postgresql+"):
        return "postgresql"
    if scheme in ("memory", "sqlite"):
        return scheme
    # Never echo the URL itself: it may hold a password.
    shown = f"scheme {scheme!r}" if scheme else "a URL without a scheme"
    raise ConfigError(f"unknown ledger URL ({shown}); use {_SCHEMES}")


def _sqlite_path(url: str) -> Path:
    """``sqlite:///rel/path`` is relative to the cwd, ``sqlite:////abs/path`` absolute."""
    rest = url.partition("://")[2]
    if not rest.startswith("/") or rest == "/":
        raise ConfigError(f"a SQLite ledger URL looks like sqlite:///PATH, not {url!r}")
    return Path(unquote(rest[1:]))
