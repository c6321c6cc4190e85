"""Events to and from the rows the SQL stores keep (shared by SQLite and PostgreSQL).

A row is ``(session_id, seq, time, type, data, surface_op, source_seqs)`` with the
last three as JSON text. Decoding checks everything it relies on, so a row that
was damaged on disk is reported by session and seq instead of failing later.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeAlias

from ctxbudget.errors import CorruptEventError
from ctxbudget.ledger.events import Event, ReplaceOp, SurfaceOp, freeze_json
from ctxbudget.ledger.rules import NewEvent
from ctxbudget.ledger.surface import SessionState

__all__ = ["Row", "decode_row", "decode_rows", "decode_state", "encode_rows"]

Row: TypeAlias = tuple[str, int, int, str, str, str | None, str | None]
"""session_id, seq, time, type, data JSON, surface_op JSON, source_seqs JSON."""


def encode_rows(stored: Iterable[Event], batch: Iterable[NewEvent]) -> list[Row]:
    """The rows for a planned batch; ``batch`` supplies the already-serialized data."""
    return [
        (
            event.session_id,
            event.seq,
            event.time,
            event.type,
            new.data_json,
            _surface_op_json(event.surface_op),
            None if event.source_seqs is None else json.dumps(list(event.source_seqs)),
        )
        for event, new in zip(stored, batch, strict=True)
    ]


def _surface_op_json(op: SurfaceOp | None) -> str | None:
    if op is None:
        return None
    return json.dumps(op if isinstance(op, str) else op.to_json())


def decode_rows(session_id: str, start: int, rows: Iterable[tuple[Any, ...]]) -> Iterator[Event]:
    """Events from ``(seq, time, type, data, surface_op, source_seqs)`` rows in seq order."""
    expected = start
    for seq, time, kind, data, surface_op, source_seqs in rows:
        if seq != expected:
            raise CorruptEventError(session_id, expected, f"the row is missing (next is {seq})")
        yield _decode(session_id, seq, time, kind, data, surface_op, source_seqs)
        expected += 1


def decode_row(session_id: str, row: tuple[Any, ...]) -> Event:
    """One event from a ``(seq, time, type, data, surface_op, source_seqs)`` row."""
    seq = row[0]
    if not isinstance(seq, int):
        raise CorruptEventError(session_id, -1, f"a row has the seq {seq!r}")
    return _decode(session_id, *row)


def _decode(
    session_id: str,
    seq: int,
    time: Any,
    kind: Any,
    data: Any,
    surface_op: Any,
    source_seqs: Any,
) -> Event:
    try:
        if not isinstance(time, int) or not isinstance(kind, str) or not kind:
            raise ValueError("time or type has the wrong type")
        payload = json.loads(data)
        if not isinstance(payload, Mapping):
            raise ValueError("data is not a JSON object")
        return Event(
            session_id,
            seq,
            time,
            kind,
            freeze_json(payload),
            _decode_surface_op(surface_op),
            _decode_sources(source_seqs),
        )
    except (ValueError, TypeError, RecursionError) as exc:
        raise CorruptEventError(session_id, seq, str(exc) or type(exc).__name__) from None


def _decode_surface_op(text: Any) -> SurfaceOp | None:
    if text is None:
        return None
    op = json.loads(text)
    if op == "append":
        return "append"
    if isinstance(op, dict) and op.get("op") == "replace":
        start, end = op.get("start"), op.get("end")
        if isinstance(start, int) and isinstance(end, int):
            return ReplaceOp(start, end)
    raise ValueError(f"surface_op {text!r} is not 'append' or a replace")


def _decode_sources(text: Any) -> tuple[int, ...] | None:
    if text is None:
        return None
    seqs = json.loads(text)
    if not isinstance(seqs, list) or not all(isinstance(s, int) for s in seqs):
        raise ValueError(f"source_seqs {text!r} is not a list of integers")
    return tuple(seqs)


def decode_state(session_id: str, row: tuple[Any, ...]) -> SessionState:
    """A session's state row ``(revision, state JSON)``."""
    revision, text = row
    try:
        if not isinstance(revision, int) or not isinstance(text, str):
            raise ValueError("revision or state has the wrong type")
        return SessionState.from_json(revision, text)
    except (ValueError, RecursionError) as exc:
        raise CorruptEventError(session_id, -1, f"its state row is damaged: {exc}") from None
