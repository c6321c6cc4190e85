"""Append-time rules: what a session accepts, checked before anything is stored.

Shape first (a JSON object of a known form, losslessly storable, under the size
limit), then the log rules of the replay meter's session (surface-eligible
types carry ``surface_op``, replace ranges name the current surface, source
seqs point strictly backwards). A batch is checked as a whole against the
surface it will land on, so nothing invalid is ever stored.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxbudget.errors import (
    CorruptEventError,
    EventTooLargeError,
    InvalidEventError,
    InvalidSessionIdError,
)
from ctxbudget.ledger.events import SURFACE_TYPES, Event, ReplaceOp, SurfaceOp, freeze_json

__all__ = [
    "MAX_EVENT_BYTES",
    "MAX_SESSION_ID_LENGTH",
    "NewEvent",
    "SurfaceTracker",
    "check_session_id",
    "parse_event",
    "plan_append",
]

MAX_EVENT_BYTES: Final = 4 * 1024 * 1024
"""Default limit on one event's JSON (UTF-8 bytes); large blobs belong in an archive."""
MAX_SESSION_ID_LENGTH: Final = 256
"""Longest accepted session id, in characters."""
MAX_NESTING: Final = 64
"""Deepest accepted JSON nesting; deeper payloads are almost surely a bug."""
MAX_SAFE_INTEGER: Final = 2**53 - 1
"""Seqs stay exact in JavaScript and in JSON readers that use doubles."""

_EVENT_KEYS: Final = frozenset({"type", "data", "surface_op", "source_seqs"})

# Fields the known event types must carry, so a reader never trips over a missing turn.
_INT, _STR, _LIST, _OBJECT = "an integer", "a string", "a list", "an object"
_REQUIRED_FIELDS: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "user/message": (("content", _LIST),),
    "context/message": (("content", _LIST),),
    "steering/message": (("content", _LIST),),
    "assistant/message": (("turn", _INT), ("step", _INT), ("content", _LIST)),
    "tool/result": (("call_id", _STR), ("content", _LIST)),
    "assistant/chunk": (("turn", _INT), ("step", _INT), ("chunk", _OBJECT)),
    "tool/call": (("call_id", _STR), ("name", _STR)),
    "request/header": (("header", _OBJECT),),
    "step/start": (("turn", _INT), ("step", _INT)),
    "step/end": (("turn", _INT), ("step", _INT)),
    "turn/start": (("turn", _INT),),
    "turn/end": (("turn", _INT),),
}
_USAGE_FIELDS: Final = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event that passed the shape checks; ``data_json`` is what gets stored."""

    type: str
    data: Mapping[str, Any]
    data_json: str
    surface_op: SurfaceOp | None
    source_seqs: tuple[int, ...] | None


def check_session_id(session_id: object) -> str:
    """``session_id`` if it can be stored everywhere; else ``InvalidSessionIdError``."""
    if not isinstance(session_id, str):
        raise InvalidSessionIdError(
            f"a session id must be a string, not {type(session_id).__name__}"
        )
    if not session_id or len(session_id) > MAX_SESSION_ID_LENGTH:
        raise InvalidSessionIdError(
            f"a session id must be 1 to {MAX_SESSION_ID_LENGTH} characters, not {len(session_id)}"
        )
    for ch in session_id:
        # Control characters (NUL above all) and lone surrogates cannot be stored in
        # PostgreSQL text or encoded as UTF-8; reject them everywhere for one rule.
        if unicodedata.category(ch) in ("Cc", "Cs"):
            raise InvalidSessionIdError(
                f"session id {session_id!r} contains the character U+{ord(ch):04X}, "
                "which cannot be stored; use printable characters only"
            )
    return session_id


def parse_event(raw: object, max_bytes: int = MAX_EVENT_BYTES) -> NewEvent:
    """Check the shape of one event to append; ``InvalidEventError`` says what is wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidEventError(f"an event must be a JSON object, not {type(raw).__name__}")
    unknown = sorted(str(k) for k in raw if k not in _EVENT_KEYS)
    if unknown:
        raise InvalidEventError(
            f"event has unknown keys {unknown} (allowed: data, source_seqs, surface_op, type); "
            "the ledger assigns seq and time itself"
        )
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind or len(kind) > 128:
        raise InvalidEventError(f"event type must be a non-empty string, not {kind!r}")
    data = raw.get("data", {})
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind} event data must be a JSON object")
    _check_json(data, f"{kind} data", 0)
    _check_fields(kind, data)
    data_json = _dump(data, kind)
    surface_op = _parse_surface_op(raw.get("surface_op"), kind)
    source_seqs = _parse_source_seqs(raw.get("source_seqs"), kind)
    size = len(data_json.encode("utf-8")) + 16 * len(source_seqs or ()) + 64
    if size > max_bytes:
        raise EventTooLargeError(size, max_bytes)
    return NewEvent(kind, freeze_json(data), data_json, surface_op, source_seqs)


def _dump(data: Mapping[str, Any], kind: str) -> str:
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidEventError(
            f"{kind} data contains a lone surrogate (U+{ord(exc.object[exc.start]):04X}), "
            "which cannot be stored as UTF-8; decode the source text properly"
        ) from None
    return text


def _check_json(value: Any, where: str, depth: int) -> None:
    if depth > MAX_NESTING:
        raise InvalidEventError(f"{where} is nested deeper than {MAX_NESTING} levels")
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidEventError(f"{where} holds {value}, which JSON cannot represent")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidEventError(f"{where} has a non-string key {key!r}")
            _check_json(item, f"{where}.{key}", depth + 1)
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _check_json(item, f"{where}[{index}]", depth + 1)
        return
    raise InvalidEventError(
        f"{where} holds a {type(value).__name__}, which is not JSON "
        "(use objects, arrays, strings, numbers, booleans and null)"
    )


def _check_fields(kind: str, data: Mapping[str, Any]) -> None:
    for key, expected in _REQUIRED_FIELDS.get(kind, ()):
        if not _has_shape(data.get(key), expected):
            raise InvalidEventError(f"{kind} data field {key!r} must be {expected}")
    content = data.get("content")
    if kind in SURFACE_TYPES and isinstance(content, list | tuple):
        for index, block in enumerate(content):
            if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
                raise InvalidEventError(
                    f"{kind} content[{index}] must be a block object with a string 'type'"
                )
    if kind == "assistant/message" and data.get("usage") is not None:
        _check_usage(data["usage"])
    if kind == "request/header":
        config = data["header"].get("config")
        if not isinstance(config, Mapping) or not all(
            isinstance(config.get(k), str) for k in ("provider", "model")
        ):
            raise InvalidEventError(
                "request/header data.header.config must be an object with string "
                "'provider' and 'model'"
            )


def _has_shape(value: Any, expected: str) -> bool:
    if expected == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == _STR:
        return isinstance(value, str)
    if expected == _LIST:
        return isinstance(value, list | tuple)
    return isinstance(value, Mapping)


def _check_usage(usage: Any) -> None:
    if not isinstance(usage, Mapping):
        raise InvalidEventError("assistant/message usage must be an object")
    for key in _USAGE_FIELDS:
        value = usage.get(key)
        required = key in ("input_tokens", "output_tokens")
        if value is None and not required:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InvalidEventError(
                f"assistant/message usage.{key} must be a non-negative integer, not {value!r}"
            )


def _parse_surface_op(value: Any, kind: str) -> SurfaceOp | None:
    if value is None or value == "append":
        return value  # type: ignore[no-any-return]
    if (
        isinstance(value, Mapping)
        and value.get("op") == "replace"
        and set(value)
        == {
            "op",
            "start",
            "end",
        }
    ):
        start, end = value["start"], value["end"]
        if all(_is_seq(v) for v in (start, end)):
            return ReplaceOp(start, end)
    raise InvalidEventError(
        f"{kind} surface_op must be 'append' or {{'op': 'replace', 'start': seq, 'end': seq}}, "
        f"not {value!r}"
    )


def _parse_source_seqs(value: Any, kind: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(_is_seq(v) for v in value):
        raise InvalidEventError(f"{kind} source_seqs must be a list of non-negative integers")
    seqs = tuple(value)
    if len(set(seqs)) != len(seqs):
        raise InvalidEventError(f"{kind} source_seqs {list(seqs)} repeat a seq")
    return seqs


def _is_seq(value: Any) -> bool:
    return _has_shape(value, _INT) and 0 <= value <= MAX_SAFE_INTEGER


Lookup = Callable[[int], Event]
"""Reads one stored event of the session by seq (for the tool/result replace rule)."""


class SurfaceTracker:
    """The current surface (positional seqs) of one session, as of ``revision``."""

    __slots__ = ("kinds", "revision", "seqs")

    def __init__(self) -> None:
        self.revision = 0
        self.seqs: list[int] = []
        self.kinds: dict[int, str] = {}

    @classmethod
    def at_revision(cls, revision: int) -> SurfaceTracker:
        """An empty surface at ``revision``: enough to check a batch of plain appends."""
        tracker = cls()
        tracker.revision = revision
        return tracker

    def copy(self) -> SurfaceTracker:
        """An independent copy, to check a batch without touching this one."""
        other = SurfaceTracker()
        other.revision, other.seqs, other.kinds = self.revision, list(self.seqs), dict(self.kinds)
        return other

    def replay(self, event: Event) -> None:
        """Fold a stored event that was checked when it was appended."""
        if event.seq != self.revision:
            raise CorruptEventError(
                event.session_id, self.revision, f"expected seq {self.revision}, found {event.seq}"
            )
        try:
            self._apply(event.seq, event.type, event.surface_op)
        except ValueError as exc:
            raise CorruptEventError(event.session_id, event.seq, str(exc)) from None

    def check(self, event: NewEvent, lookup: Lookup) -> None:
        """Raise ``InvalidEventError`` if ``event`` may not be appended next."""
        seq, kind = self.revision, event.type
        if kind in SURFACE_TYPES:
            if event.surface_op is None:
                raise InvalidEventError(
                    f"{kind} is model-visible and must carry surface_op "
                    "('append' or a replace of the current surface)"
                )
        elif event.surface_op is not None or event.source_seqs is not None:
            raise InvalidEventError(
                f"{kind} is not model-visible and must carry neither surface_op nor source_seqs"
            )
        self._check_sources(event, seq)
        if isinstance(event.surface_op, ReplaceOp):
            self._check_replace(event, event.surface_op, lookup)

    def apply(self, event: NewEvent) -> None:
        """Fold a checked new event in as the next seq."""
        self._apply(self.revision, event.type, event.surface_op)

    def _apply(self, seq: int, kind: str, op: SurfaceOp | None) -> None:
        if op == "append":
            self.seqs.append(seq)
            self.kinds[seq] = kind
        elif isinstance(op, ReplaceOp):
            first, last = self._span(op)
            for gone in self.seqs[first : last + 1]:
                del self.kinds[gone]
            self.seqs[first : last + 1] = [seq]
            self.kinds[seq] = kind
        self.revision = seq + 1

    def _span(self, op: ReplaceOp) -> tuple[int, int]:
        try:
            first, last = self.seqs.index(op.start), self.seqs.index(op.end)
        except ValueError:
            raise ValueError(
                f"replace range {op.start}-{op.end} is not on the current surface"
            ) from None
        if first > last:
            raise ValueError(
                f"replace range {op.start}-{op.end} is reversed: {op.start} comes after "
                f"{op.end} on the surface"
            )
        return first, last

    def _check_sources(self, event: NewEvent, seq: int) -> None:
        sources = event.source_seqs
        if sources is None:
            return
        if not sources and event.type != "assistant/message":
            raise InvalidEventError(
                f"{event.type} source_seqs may be empty only on assistant/message; "
                "omit the field when the sources are unknown"
            )
        late = [s for s in sources if s >= seq]
        if late:
            raise InvalidEventError(
                f"{event.type} at seq {seq} cites source seq {late[0]}, which is not earlier"
            )

    def _check_replace(self, event: NewEvent, op: ReplaceOp, lookup: Lookup) -> None:
        try:
            first, last = self._span(op)
        except ValueError as exc:
            raise InvalidEventError(f"{event.type} {exc}") from None
        shadowed = self.seqs[first : last + 1]
        missing = sorted(set(shadowed) - set(event.source_seqs or ()))
        if missing:
            raise InvalidEventError(
                f"{event.type} replaces seqs {shadowed} but its source_seqs do not list {missing}"
            )
        if event.type == "tool/result":
            self._check_tool_result_replace(event, shadowed, lookup)

    def _check_tool_result_replace(
        self, event: NewEvent, shadowed: Sequence[int], lookup: Lookup
    ) -> None:
        if len(shadowed) != 1 or self.kinds[shadowed[0]] != "tool/result":
            raise InvalidEventError(
                "a tool/result replacement must shadow exactly one tool/result, "
                f"not the span {list(shadowed)}"
            )
        old = lookup(shadowed[0]).data
        if {k: v for k, v in old.items() if k != "content"} != {
            k: v for k, v in event.data.items() if k != "content"
        }:
            raise InvalidEventError(
                f"a tool/result replacement may change only content; it differs from seq "
                f"{shadowed[0]} in other fields"
            )


def plan_append(
    session_id: str,
    tracker: SurfaceTracker,
    events: Sequence[NewEvent],
    now: int,
    lookup: Lookup,
) -> list[Event]:
    """The stored events for a batch landing at ``tracker.revision``; ``tracker`` is untouched.

    Appends are checked without the surface (their rules depend only on their seq),
    so only a batch that replaces pays for a copy of it.
    """
    replacing = any(isinstance(new.surface_op, ReplaceOp) for new in events)
    work = tracker.copy() if replacing else SurfaceTracker.at_revision(tracker.revision)
    stored: list[Event] = []

    def lookup_in_batch(seq: int) -> Event:
        return stored[seq - tracker.revision] if seq >= tracker.revision else lookup(seq)

    for new in events:
        work.check(new, lookup_in_batch)
        stored.append(
            Event(
                session_id, work.revision, now, new.type, new.data, new.surface_op, new.source_seqs
            )
        )
        work.apply(new)
    return stored
