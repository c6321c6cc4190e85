"""Stored events: what the ledger hands back, deeply frozen.

An event is ``{"type", "data", "surface_op", "source_seqs"}`` plus the ``seq``
and ``time`` the ledger assigns. ``data`` comes back as read-only mappings and
tuples, so no reader can change what another reader sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from ctxbudget.ledger.vocabulary import SURFACE_TYPES

__all__ = [
    "SURFACE_TYPES",
    "AppendableEvent",
    "Event",
    "ReplaceOp",
    "SurfaceOp",
    "freeze_json",
    "thaw_json",
]


@dataclass(frozen=True, slots=True)
class ReplaceOp:
    """Replace the inclusive positional surface span ``start``..``end`` (two seqs)."""

    start: int
    end: int

    def to_json(self) -> dict[str, Any]:
        """The stored form, ``{"op": "replace", "start": …, "end": …}``."""
        return {"op": "replace", "start": self.start, "end": self.end}


SurfaceOp: TypeAlias = Literal["append"] | ReplaceOp

AppendableEvent: TypeAlias = Mapping[str, Any]
"""An event to append: ``{"type", "data", "surface_op"?, "source_seqs"?}`` as JSON."""


@dataclass(frozen=True, slots=True)
class Event:
    """One logged event; ``seq`` is its index in the session, ``time`` epoch milliseconds.

    ``source_seqs`` is ``None`` when the producer recorded no provenance, which is
    not the same as ``()``: a known-empty source list.
    """

    session_id: str
    seq: int
    time: int
    type: str
    data: Mapping[str, Any]
    surface_op: SurfaceOp | None = None
    source_seqs: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """A plain, mutable JSON object for this event (``seq`` and ``time`` included)."""
        out: dict[str, Any] = {
            "seq": self.seq,
            "time": self.time,
            "type": self.type,
            "data": thaw_json(self.data),
        }
        if self.surface_op is not None:
            out["surface_op"] = (
                self.surface_op if isinstance(self.surface_op, str) else self.surface_op.to_json()
            )
        if self.source_seqs is not None:
            out["source_seqs"] = list(self.source_seqs)
        return out

    def to_new(self) -> dict[str, Any]:
        """The appendable form (no ``seq``/``time``), e.g. to copy a session elsewhere."""
        out = self.to_json()
        del out["seq"], out["time"]
        return out


def freeze_json(value: Any) -> Any:
    """A read-only copy of a JSON value: objects become mapping proxies, arrays tuples."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value  # the common leaves first: this runs for every stored value
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze_json(v) for v in value)
    return value


def thaw_json(value: Any) -> Any:
    """A plain, mutable copy of a (possibly frozen) JSON value."""
    if isinstance(value, Mapping):
        return {k: thaw_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw_json(v) for v in value]
    return value
