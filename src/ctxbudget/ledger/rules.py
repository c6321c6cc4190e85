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
from ctxbudget.ledger.events import ReplaceOp, SurfaceOp, freeze_json
from ctxbudget.ledger.shapes import check_fields, is_integer
from ctxbudget.ledger.vocabulary import EVENT_TYPES

__all__ = [
    "MAX_EVENT_BYTES",
    "MAX_JSON_INTEGER",
    "MAX_NESTING",
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

MAX_JSON_INTEGER: Final = 2**63 - 1
"""Integers in ``data`` must fit in 64 bits (PostgreSQL's bigint, most JSON readers)."""


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
    bad = _unstorable_char(session_id)
    if bad is not None:
        raise InvalidSessionIdError(
            f"session id {session_id!r} contains the character U+{ord(bad):04X}, "
            "which cannot be stored; use printable characters only"
        )
    return session_id


def _unstorable_char(text: str) -> str | None:
    # Control characters (NUL above all) and lone surrogates cannot be stored in
    # PostgreSQL text or encoded as UTF-8; reject them everywhere for one rule.
    if text.isascii() and text.isprintable():
        return None  # the usual case, without a per-character lookup
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return ch
    return None


def parse_event(raw: object, max_bytes: int = MAX_EVENT_BYTES) -> NewEvent:
    """Check the shape of one event to append; ``InvalidEventError`` says what is wrong."""
    if not isinstance(raw, Mapping):
        raise InvalidEventError(
            f"an event must be a JSON object, not {type(raw).__name__}", "event-shape"
        )
    unknown = sorted(str(k) for k in raw if k not in _EVENT_KEYS)
    if unknown:
        raise InvalidEventError(
            f"event has unknown keys {unknown} (allowed: data, source_seqs, surface_op, type); "
            "the ledger assigns seq and time itself"
        )
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind or len(kind) > 128:
        raise InvalidEventError(
            f"event type must be a non-empty string of at most 128 characters, not {kind!r}",
            "event-type",
        )
    bad = _unstorable_char(kind)
    if bad is not None:
        raise InvalidEventError(
            f"event type {kind!r} contains the character U+{ord(bad):04X}, which cannot be "
            "stored; use printable characters only",
            "event-type",
        )
    data = raw.get("data", {})
    if not isinstance(data, Mapping):
        raise InvalidEventError(f"{kind} event data must be a JSON object", "data-shape")
    _check_json(data, f"{kind} data", 0)
    known = EVENT_TYPES.get(kind)
    if known is not None:
        check_fields(known.fields, data, f"{kind} data")
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
            "which cannot be stored as UTF-8; decode the source text properly",
            "json-value",
        ) from None
    return text


def _check_scalar(value: Any, where: str) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not -MAX_JSON_INTEGER - 1 <= value <= MAX_JSON_INTEGER:
        raise InvalidEventError(
            f"{where} holds an integer outside the 64-bit range, which not every store "
            "and JSON reader keeps exactly; send it as a string",
            "json-value",
        )
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise InvalidEventError(f"{where} holds {value}, which JSON cannot represent", "json-value")


_INFINITIES: Final = (float("inf"), float("-inf"))


def _plain_json(value: Any, depth: int) -> bool:
    """The fast check of the common case (exact JSON types); False means "look closer"."""
    if depth > MAX_NESTING:
        return False
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_JSON_INTEGER - 1 <= value <= MAX_JSON_INTEGER)
    if kind is float:
        return value == value and value not in _INFINITIES
    if kind is dict:
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(_plain_json(v, depth + 1) for v in value)
    return False


def _check_json(value: Any, where: str, depth: int) -> None:
    # Paths are built only when the fast check found something to explain.
    if not _plain_json(value, depth):
        _explain_json(value, where, depth)


def _explain_json(value: Any, where: str, depth: int) -> None:
    if depth > MAX_NESTING:
        raise InvalidEventError(
            f"{where} is nested deeper than {MAX_NESTING} levels; flatten it or store it as "
            "a JSON string",
            "json-depth",
        )
    if value is None or isinstance(value, str | bool | int | float):
        _check_scalar(value, where)
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidEventError(f"{where} has a non-string key {key!r}", "json-value")
            _explain_json(item, f"{where}.{key}", depth + 1)
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            _explain_json(item, f"{where}[{index}]", depth + 1)
        return
    raise InvalidEventError(
        f"{where} holds a {type(value).__name__}, which is not JSON "
        "(use objects, arrays, strings, numbers, booleans and null)",
        "json-value",
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
        f"not {value!r}",
        "surface-op",
    )


def _parse_source_seqs(value: Any, kind: str) -> tuple[int, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(_is_seq(v) for v in value):
        raise InvalidEventError(
            f"{kind} source_seqs must be a list of non-negative integers", "source-seqs"
        )
    seqs = tuple(value)
    if len(set(seqs)) != len(seqs):
        raise InvalidEventError(f"{kind} source_seqs {list(seqs)} repeat a seq", "source-seqs")
    return seqs


def _is_seq(value: Any) -> bool:
    return is_integer(value) and 0 <= value <= MAX_SAFE_INTEGER
