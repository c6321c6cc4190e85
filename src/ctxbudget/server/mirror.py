"""Mirroring what an agent sends into its session's ledger, call after call.

An agent re-sends its whole conversation on every call. The proxy keeps, per
session, a *view* of the surface it has logged (each surface event's seq and a
digest of its content) and, for each new call, logs only what the view lacks:
the conversation's new messages, then the answer with its usage. When the agent
has rewritten its history (its own compaction, an edited turn), the span from the
first difference on is replaced by an empty ``context/message`` and the request's
messages from there are logged again, so the log always mirrors what the model saw.

Message to event, one unit each:

- an assistant message -> ``assistant/message`` (inside ``step/start``/``step/end``);
- a tool result block -> ``tool/result``; other blocks of a user or tool message
  -> one ``user/message``; a system message in the middle -> ``context/message``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, Final

from ctxbudget.content import Message, ToolResultBlock, blocks_to_json
from ctxbudget.formats import RequestCache
from ctxbudget.ledger import Event, ReplaceOp, SurfaceOp

__all__ = [
    "EMPTY_VIEW",
    "REWRITE_SOURCE",
    "Answer",
    "SessionView",
    "Unit",
    "cached_units",
    "message_units",
    "plan_events",
    "surface_op_of",
]

REWRITE_SOURCE: Final[Mapping[str, str]] = MappingProxyType(
    {"kind": "proxy", "reason": "history rewritten by the agent"}
)
"""``source`` of the empty ``context/message`` that replaces a rewritten span."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One surface event a message becomes: its type, its data and its digest."""

    type: str
    data: Mapping[str, Any]
    digest: str


def _digest(kind: str, data: Mapping[str, Any]) -> str:
    """SHA-256 of what the model sees of an event: its type, call id, error flag and
    blocks. Plain text blocks are hashed as their text (length-prefixed), others as
    JSON with sorted keys, so stored events (whose key order a database may change)
    and freshly parsed messages give the same digest; it runs on every message of
    every call, hence the fast path for text."""
    digest = hashlib.sha256(
        f"{kind}\0{data.get('call_id')}\0{bool(data.get('is_error', False))}\0".encode()
    )
    for block in data.get("content") or ():
        text = block.get("text") if len(block) == 2 and block.get("type") == "text" else None
        if isinstance(text, str):
            encoded = text.encode("utf-8", "surrogatepass")
            digest.update(b"t%d:" % len(encoded))
        else:
            encoded = json.dumps(_plain(block), sort_keys=True).encode()
            digest.update(b"j%d:" % len(encoded))
        digest.update(encoded)
    return digest.hexdigest()


def _unit(kind: str, data: dict[str, Any]) -> Unit:
    return Unit(kind, data, _digest(kind, data))


def message_units(messages: Sequence[Message]) -> list[Unit]:
    """The surface events ``messages`` become, in order."""
    units: list[Unit] = []
    for message in messages:
        if message.role == "assistant":
            units.append(_unit("assistant/message", {"content": blocks_to_json(message.content)}))
            continue
        if message.role in ("system", "developer"):
            content = blocks_to_json(message.content)
            units.append(
                _unit("context/message", {"content": content, "source": {"kind": "request"}})
            )
            continue
        rest = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                data = {
                    "call_id": block.tool_call_id,
                    "content": blocks_to_json(block.content),
                    "is_error": block.is_error,
                }
                units.append(_unit("tool/result", data))
            else:
                rest.append(block)
        if rest or not message.content:
            data = {"content": blocks_to_json(tuple(rest)), "source": {"kind": "user"}}
            units.append(_unit("user/message", data))
    return units


UNIT_ENTRY_BYTES: Final = 256
"""What one cached unit is charged in the ``RequestCache`` beyond its message (whose
strings the units share, and which the cache's parsed turns already hold)."""


def cached_units(messages: Sequence[Message], cache: RequestCache) -> list[Unit]:
    """``message_units(messages)``, each message's units remembered in ``cache``.

    An agent re-sends its history on every call and the request cache hands back the
    very same ``Message`` objects for re-sent messages (found by content), so a warm
    call hashes only its new messages. Entries are keyed by the message's identity and
    keep the message itself, so no other object can take over its id while the entry
    lives; messages are frozen, so the units stay right. Units are never edited
    (``plan_events`` copies their data into the events it writes).
    """
    units: list[Unit] = []
    get = cache.get
    for message in messages:
        key = ("mirror-units", id(message))
        entry = get(key)
        if type(entry) is tuple and entry[0] is message:
            units.extend(entry[1])
            continue
        made = tuple(message_units((message,)))
        cache.put(key, (message, made), UNIT_ENTRY_BYTES * max(1, len(made)))
        units.extend(made)
    return units


def _event_digest(kind: str, data: Mapping[str, Any]) -> str | None:
    if kind == "context/message" and dict(data.get("source") or {}) == REWRITE_SOURCE:
        return None  # a placeholder matches no message
    return _digest(kind, data)


@dataclass(frozen=True, slots=True)
class SessionView:
    """What the proxy knows of a session's log: its revision, its surface as
    ``(seq, digest)`` pairs, the last request header logged and the user turns."""

    revision: int = 0
    surface: tuple[tuple[int, str | None], ...] = ()
    header: Mapping[str, Any] | None = None
    turns: int = 0
    last_usage: Mapping[str, Any] | None = None

    def advanced(
        self, seq: int, kind: str, data: Mapping[str, Any], surface_op: SurfaceOp | None
    ) -> SessionView:
        """The view after event ``seq``."""
        view = replace(self, revision=seq + 1)
        if kind == "request/header":
            return replace(view, header=_plain(data.get("header")))
        if kind == "user/message":
            view = replace(view, turns=view.turns + 1)
        if kind == "assistant/message" and data.get("usage") is not None:
            view = replace(view, last_usage=_plain(data["usage"]))
        if surface_op is None:
            return view
        entry = (seq, _event_digest(kind, data))
        if isinstance(surface_op, ReplaceOp):
            seqs = [s for s, _ in view.surface]
            if surface_op.start in seqs and surface_op.end in seqs:
                first, last = seqs.index(surface_op.start), seqs.index(surface_op.end)
                surface = (*view.surface[:first], entry, *view.surface[last + 1 :])
                return replace(view, surface=surface)
            return view
        return replace(view, surface=(*view.surface, entry))

    def with_events(self, events: Sequence[Event]) -> SessionView:
        """The view after ``events`` (read from the ledger from ``revision`` on)."""
        view = self
        for event in events:
            view = view.advanced(event.seq, event.type, event.data, event.surface_op)
        return view

    @property
    def cache_efficiency(self) -> float | None:
        """Share of the last call's prompt read from the provider's cache, if reported."""
        usage = self.last_usage
        if not usage:
            return None
        read = int(usage.get("cache_read_tokens") or 0)
        prompt = (
            int(usage.get("input_tokens") or 0) + read + int(usage.get("cache_write_tokens") or 0)
        )
        return read / prompt if prompt else None

    @property
    def size_bytes(self) -> int:
        """About how much memory the view holds (for the cache's byte bound)."""
        return 200 + 120 * len(self.surface) + len(json.dumps(self.header or {}))


EMPTY_VIEW: Final = SessionView()


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Answer:
    """What the provider answered: the assistant's units and the normalized usage."""

    units: tuple[Unit, ...]
    usage: Mapping[str, int] | None
    provenance: Mapping[str, Any]


def surface_op_of(value: Any) -> SurfaceOp | None:
    """The ``surface_op`` of an event written as JSON (``"append"`` or a replace object)."""
    if isinstance(value, Mapping):
        return ReplaceOp(int(value["start"]), int(value["end"]))
    return "append" if value == "append" else None


def _matched_prefix(view: SessionView, units: Sequence[Unit]) -> tuple[int, int | None]:
    """How many request units the view already holds, and the surface position where
    the first unmatched logged entry sits (``None``: everything logged matched)."""
    matched = 0
    for position, (_, digest) in enumerate(view.surface):
        if digest is None:
            continue
        if matched < len(units) and units[matched].digest == digest:
            matched += 1
            continue
        return matched, position
    return matched, None


def plan_events(
    view: SessionView, units: Sequence[Unit], header: Mapping[str, Any], answer: Answer
) -> list[dict[str, Any]]:
    """The events that bring the log from ``view`` to this call and its answer."""
    events: list[dict[str, Any]] = []
    matched, diverged_at = _matched_prefix(view, units)
    if diverged_at is not None:
        hidden = [seq for seq, _ in view.surface[diverged_at:]]
        events.append(
            {
                "type": "context/message",
                "data": {"content": [], "source": dict(REWRITE_SOURCE)},
                "surface_op": ReplaceOp(hidden[0], hidden[-1]).to_json(),
                "source_seqs": hidden,
            }
        )
    turns = view.turns
    for unit in units[matched:]:
        if unit.type == "user/message":
            turns += 1
        if unit.type == "assistant/message":
            step = view.revision + len(events)
            events += _step(turns, step, [dict(unit.data, provenance={"source": "request"})])
        else:
            events.append({"type": unit.type, "data": dict(unit.data), "surface_op": "append"})
    step = view.revision + len(events)
    answered = [dict(u.data, provenance=dict(answer.provenance)) for u in answer.units] or [
        {"content": [], "provenance": dict(answer.provenance)}
    ]
    if answer.usage is not None:
        answered[-1]["usage"] = dict(answer.usage)
    head = [] if header == view.header else [{"type": "request/header", "data": {"header": header}}]
    events += _step(turns, step, answered, head)
    return events


def _step(
    turn: int,
    step: int,
    messages: Sequence[dict[str, Any]],
    head: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    ids = {"turn": turn, "step": step}
    body = [
        {"type": "assistant/message", "data": {**m, **ids}, "surface_op": "append"}
        for m in messages
    ]
    return [{"type": "step/start", "data": ids}, *head, *body, {"type": "step/end", "data": ids}]
