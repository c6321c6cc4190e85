"""What one server process holds while it runs: settings, ledger, meter, clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from ctxbudget.ledger import Ledger
from ctxbudget.meter import TokenMeter
from ctxbudget.server.sessions import SessionRecorder
from ctxbudget.server.settings import ServerSettings
from ctxbudget.server.summary_cache import SpanSummaryCache

__all__ = ["ServerState"]


@dataclass(frozen=True, slots=True)
class ServerState:
    """The process's parts; built when the app starts, closed when it stops."""

    settings: ServerSettings
    ledger: Ledger
    meter: TokenMeter
    recorder: SessionRecorder
    client: httpx.AsyncClient
    summaries: SpanSummaryCache | None
    archive: Any = None
