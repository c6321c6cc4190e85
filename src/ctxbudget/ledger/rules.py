"""Append-time rules: what a session accepts, checked before anything is stored.

Here: the shape of one event (a JSON object of a known form, losslessly storable,
under the size limit) and the session id. The log rules that need the current
surface (replace ranges, source seqs) live in ``surface``. A batch is checked
as a whole before it is written, so nothing invalid is ever stored.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ctxbudget.errors import EventTooLargeError, InvalidEventError, InvalidSessionIdError
from ctxbudget.ledger.events import SURFACE_TYPES, ReplaceOp, SurfaceOp, freeze_json

__all__ = [
    "MAX_EVENT_BYTES",
    "MAX_SESSION_ID_LENGTH",
    "NewEvent",
    "check_session_id",
    "parse_event",
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
