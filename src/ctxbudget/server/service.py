"""The JSON service over the library: count, context breakdown, fit, sessions.

Every error answers ``{"error": {"code", "message", ...}}`` with the stable code
of ``ctxbudget.errors``.
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from anyio import to_thread
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from ctxbudget.archives import LedgerArchive
from ctxbudget.compaction import (
    Compacted,
    CompactionConfig,
    CompactionOutcome,
    CompactionStalled,
    Compactor,
    NotNeeded,
)
from ctxbudget.enforce import enforce_budget_async
from ctxbudget.errors import BudgetExceeded, SessionNotFoundError
from ctxbudget.formats import meter_request, parse_request
from ctxbudget.ledger import check_session_id
from ctxbudget.meter import Measurement
from ctxbudget.server.provider_errors import error_body
from ctxbudget.server.state import ServerState
from ctxbudget.summaries import ExtractiveSummarizer
from ctxbudget.tokens import default_counter, get_counter

__all__ = [
    "BodyIn",
    "CompactIn",
    "CountIn",
    "EventsIn",
    "FitIn",
    "measurement_json",
    "service_router",
]


class CountIn(BaseModel):
    """Texts to count, and the counter spec (default: the library's default counter)."""

    texts: list[str]
    counter: str | None = Field(None, examples=["calibrated:generic", "tiktoken:o200k_base"])


class BodyIn(BaseModel):
    """A provider request body and its format (``openai``, ``anthropic``,
    ``openai-responses``; detected from the body when left out)."""

    body: dict[str, Any]
    format: str | None = None


class FitIn(BodyIn):
    """A body to hold to a budget; without ``max_input_tokens``, the server's budget."""

    max_input_tokens: int | None = Field(None, ge=0)
    cache_efficiency: float | None = Field(None, ge=0, le=1)
    cost_pressure: bool = False


class CompactIn(BaseModel):
    """How to compact: now (the span compaction would choose), or only ``if_needed``
    (at the threshold); ``retain_tokens`` of newest history stay verbatim."""

    if_needed: bool = False
    retain_tokens: int | None = Field(None, ge=0)
    threshold_ratio: float | None = Field(None, gt=0, le=1)


class EventsIn(BaseModel):
    """Events to append in one transaction (docs/events.md)."""

    events: list[dict[str, Any]]
    expected_revision: int | None = Field(None, ge=0)


def measurement_json(measurement: Measurement) -> dict[str, Any]:
    """A measurement as JSON."""
    baseline = measurement.baseline
    return {
        "log_revision": measurement.log_revision,
        "total_tokens": measurement.total_tokens,
        "capacity": measurement.capacity,
        "pressure": str(measurement.pressure),
        "baseline": {
            "kind": baseline.kind,
            "tokens": baseline.tokens,
            "usage": asdict(baseline.usage) if baseline.usage else None,
        },
        "surface_tokens": measurement.surface_tokens,
        "surface_delta_tokens": measurement.surface_delta_tokens,
        "delta_scale": measurement.delta_scale,
        "nodes": [{"seq": node.seq, "tokens": node.tokens} for node in measurement.nodes],
    }


def _state(request: Request) -> ServerState:
    state: ServerState = request.app.state.ctxbudget
    return state


def service_router() -> APIRouter:
    """The service's routes (the app adds the guards and the error handler)."""
    router = APIRouter()
    _add_request_routes(router)
    _add_session_routes(router)
    return router


def _add_request_routes(router: APIRouter) -> None:
    """Count, context, fit: over one body, no session involved."""

    @router.post("/count", tags=["service"])
    async def count(given: CountIn) -> dict[str, Any]:
        """Token counts of texts."""
        counter = get_counter(given.counter) if given.counter else default_counter()
        return {"counter": counter.name, "counts": [counter.count(t) for t in given.texts]}

    @router.post("/context", tags=["service"])
    async def context(given: BodyIn) -> dict[str, Any]:
        """The request's estimated tokens per segment (system, tools, conversation, pending)."""
        parsed = parse_request(given.body, given.format)
        meter = meter_request(parsed)
        segments = {usage.segment: usage.tokens for usage in meter.segments()}
        return {"format": parsed.format, "segments": segments, "total_tokens": meter.total()}

    @router.post("/fit", tags=["service"])
    async def fit(given: FitIn, request: Request) -> dict[str, Any]:
        """Hold a body to a budget: the body to send, or the refusal with its numbers."""
        budget = _state(request).settings.budget
        if given.max_input_tokens is not None:
            budget = replace(budget, max_input_tokens=given.max_input_tokens)
        try:
            done = await enforce_budget_async(
                given.body,
                budget,
                format=given.format,  # type: ignore[arg-type]
                cache_efficiency=given.cache_efficiency,
                cost_pressure=given.cost_pressure,
            )
        except BudgetExceeded as refusal:
            return {"fits": False, "refusal": error_body(refusal, "service")[1]["error"]}
        return {
            "fits": True,
            "compressed": done.info.compressed,
            "stages": list(done.info.stages),
            "estimate_before": done.estimate_before,
            "estimate_after": done.estimate_after,
            "body": done.body,
        }


def _add_session_routes(router: APIRouter) -> None:
    """Sessions in the ledger: list, read, measure, append, compact."""

    @router.get("/sessions", tags=["sessions"])
    async def sessions(request: Request) -> dict[str, Any]:
        """Ids of the sessions in the ledger."""
        return {"sessions": await to_thread.run_sync(_state(request).ledger.sessions)}

    @router.get("/sessions/{session_id}", tags=["sessions"])
    async def session(session_id: str, request: Request, start: int = 0) -> dict[str, Any]:
        """The session's measurement and its history (events from ``start`` on)."""
        state = _state(request)
        measured = await _measure(state, session_id)
        events = await to_thread.run_sync(state.ledger.events, session_id, start)
        return {
            "session_id": session_id,
            "measurement": measured,
            "history": [event.to_json() for event in events],
        }

    @router.get("/sessions/{session_id}/measure", tags=["sessions"])
    async def measure(session_id: str, request: Request) -> dict[str, Any]:
        """How many tokens the session's next request takes."""
        return await _measure(_state(request), session_id)

    @router.post("/sessions/{session_id}/events", tags=["sessions"])
    async def append(session_id: str, given: EventsIn, request: Request) -> dict[str, Any]:
        """Append events in one transaction; 409 ``conflict`` when not at ``expected_revision``."""
        state = _state(request)
        async with state.recorder.lock(check_session_id(session_id)):
            seqs = await to_thread.run_sync(
                state.ledger.append_many, session_id, given.events, given.expected_revision
            )
            revision = await to_thread.run_sync(state.ledger.revision, session_id)
        return {"seqs": seqs, "revision": revision}

    @router.post("/sessions/{session_id}/compact", tags=["sessions"])
    async def compact(session_id: str, given: CompactIn, request: Request) -> dict[str, Any]:
        """Archive the session's oldest span and replace it by an extractive summary
        (docs/compaction.md); the originals stay addressable in the ledger."""
        state = _state(request)
        await _measure(state, session_id)  # 404 for a session with no events
        async with state.recorder.lock(session_id):
            return await to_thread.run_sync(_compact, state, session_id, given)


def _compact(state: ServerState, session_id: str, given: CompactIn) -> dict[str, Any]:
    defaults = CompactionConfig()
    config = CompactionConfig(
        threshold_ratio=given.threshold_ratio or defaults.threshold_ratio,
        retain_tokens=given.retain_tokens,
    )
    archive = LedgerArchive.per_session(state.ledger)
    compactor = Compactor(state.ledger, state.meter, ExtractiveSummarizer(), archive, config)
    if given.if_needed:
        return _outcome_json(compactor.compact_if_needed(session_id))
    span = compactor.select_range(session_id)
    if span is None:
        return {"outcome": "nothing_to_compact"}
    return _outcome_json(compactor.compact_region(session_id, span.start_seq, span.end_seq))


def _outcome_json(outcome: CompactionOutcome) -> dict[str, Any]:
    kind = {Compacted: "compacted", NotNeeded: "not_needed", CompactionStalled: "stalled"}
    return {"outcome": kind[type(outcome)], **asdict(outcome)}


async def _measure(state: ServerState, session_id: str) -> dict[str, Any]:
    await state.recorder.settled(check_session_id(session_id))
    measured = await to_thread.run_sync(state.meter.measure, session_id)
    if measured.log_revision == 0:
        raise SessionNotFoundError(session_id)
    return measurement_json(measured)
