"""What one server process holds while it runs: settings, ledger, meter, clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from ctxbudget.formats import RequestCache
from ctxbudget.ledger import Ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.server.sessions import SessionRecorder
from ctxbudget.server.settings import ServerSettings
from ctxbudget.server.summary_cache import SpanSummaryCache
from ctxbudget.server.windows import ModelWindows

__all__ = ["ServerState"]


@dataclass(frozen=True, slots=True)
class ServerState:
    """The process's parts; built when the app starts, closed when it stops.

    ``upstream`` is the connection pool calls go out through, with ``timeout``;
    ``requests`` is the enforcement's cache of parsed and priced messages, bounded
    by ``settings.request_cache_bytes``; ``summaries`` caches summaries of re-sent
    spans; ``windows`` remembers each model's context window.
    """

    settings: ServerSettings
    ledger: Ledger
    meter: TokenMeter
    recorder: SessionRecorder
    upstream: httpx.AsyncBaseTransport
    timeout: httpx.Timeout
    summaries: SpanSummaryCache | None
    requests: RequestCache
    windows: ModelWindows
    archive: Any = None
