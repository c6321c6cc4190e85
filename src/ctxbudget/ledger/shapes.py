"""Field checks driven by the vocabulary: JSON types, choices and the deeper shapes.

A shape is checked with the same parser the meter folds with (content blocks go
through ``content.block_from_json``), so a field the ledger accepts is one the
fold can read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ctxbudget.content.codec import ContentShapeError, block_from_json
from ctxbudget.errors import InvalidEventError
from ctxbudget.ledger.vocabulary import (
    CHUNK_FIELDS,
    CONFIG_FIELDS,
    HEADER_FIELDS,
    MESSAGE_FIELDS,
    USAGE_FIELDS,
    Field,
    JsonType,
    Shape,
)

__all__ = ["SHAPE_CHECKS", "check_fields", "is_integer", "json_type"]


def is_integer(value: Any) -> bool:
    """A JSON integer (``bool`` is not one, though Python says so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def json_type(value: Any) -> JsonType:
    """The JSON type name of a (checked) JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, Mapping) else "array"


def check_fields(fields: Sequence[Field], obj: Mapping[str, Any], where: str) -> None:
    """``InvalidEventError`` unless ``obj`` has every required field in its listed form."""
    for field in fields:
        if field.name not in obj:
            if field.optional:
                continue
            raise InvalidEventError(
                f"{where} lacks the field {field.name!r} ({field.doc}); add it", "field-missing"
            )
        _check_field(field, obj[field.name], f"{where}.{field.name}")


def _check_field(field: Field, value: Any, where: str) -> None:
    kind = json_type(value)
    accepted = field.types
    if accepted and kind not in accepted and not (kind == "integer" and "number" in accepted):
        raise InvalidEventError(
            f"{where} must be {' or '.join(accepted)}, not {kind} {value!r:.60}", "field-type"
        )
    if field.choices and value not in field.choices:
        raise InvalidEventError(
            f"{where} must be one of {', '.join(field.choices)}, not {value!r:.60}", "field-type"
        )
    if field.shape is not None and kind in ("object", "array"):
        SHAPE_CHECKS[field.shape](value, where)


def _blocks(value: Any, where: str) -> None:
    for index, item in enumerate(value):
        _block(item, f"{where}[{index}]")


def _block(value: Any, where: str) -> None:
    is_text = isinstance(value, Mapping) and value.get("type") == "text"
    if is_text and isinstance(value.get("text", ""), str):
        return  # the common block, checked without building it
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        raise InvalidEventError(
            f"{where} must be a block object with a string 'type'", "block-shape"
        )
    try:
        block_from_json(value)
    except ContentShapeError as exc:
        raise InvalidEventError(f"{where}: {exc}", "block-shape") from None


def _usage(value: Any, where: str) -> None:
    check_fields(USAGE_FIELDS, value, where)
    for field in USAGE_FIELDS:
        count = value.get(field.name)
        if count is not None and count < 0:
            raise InvalidEventError(
                f"{where}.{field.name} must be a non-negative integer, not {count}", "usage-shape"
            )


def _header(value: Any, where: str) -> None:
    check_fields(HEADER_FIELDS, value, where)
    for index, tool in enumerate(value.get("tools") or ()):
        if not isinstance(tool, Mapping):
            raise InvalidEventError(f"{where}.tools[{index}] must be an object", "header-shape")
    for index, message in enumerate(value.get("message_prefix") or ()):
        if not isinstance(message, Mapping):
            raise InvalidEventError(
                f"{where}.message_prefix[{index}] must be a message object {{role, content}}",
                "header-shape",
            )
        check_fields(MESSAGE_FIELDS, message, f"{where}.message_prefix[{index}]")


def _config(value: Any, where: str) -> None:
    check_fields(CONFIG_FIELDS, value, where)
    stop = value.get("stop")
    if isinstance(stop, list | tuple) and not all(isinstance(s, str) for s in stop):
        raise InvalidEventError(f"{where}.stop must be a string or strings", "header-shape")


def _chunk(value: Any, where: str) -> None:
    check_fields(CHUNK_FIELDS, value, where)
    index = value.get("index")
    if index is not None and index < 0:
        raise InvalidEventError(f"{where}.index must be non-negative, not {index}", "chunk-shape")


def _seqs(value: Any, where: str) -> None:
    if not all(is_integer(s) and s >= 0 for s in value):
        raise InvalidEventError(f"{where} must list non-negative integers", "field-type")


SHAPE_CHECKS: Final[Mapping[Shape, Callable[[Any, str], None]]] = {
    "blocks": _blocks,
    "block": _block,
    "usage": _usage,
    "header": _header,
    "config": _config,
    "chunk": _chunk,
    "seqs": _seqs,
}
"""One check per ``vocabulary.Shape``; a field's JSON type is checked before it."""
