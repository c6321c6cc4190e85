"""The one event vocabulary: every event type the library knows, and its fields.

The ledger's append rules (``rules``), the meter's fold dispatch, ``Usage`` and the
table in ``docs/events.md`` all read this module, so adding an event type is one
edit here. Event types and fields that are not listed are still stored as they
come; a listed field is checked only for its JSON type and shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal, TypeAlias

__all__ = [
    "APPEND_RULES",
    "ASSISTANT_CHUNK",
    "ASSISTANT_MESSAGE",
    "CHUNK_FIELDS",
    "COMPACTION_END",
    "COMPACTION_START",
    "COMPACTION_SUMMARY",
    "CONFIG_FIELDS",
    "CONTEXT_MESSAGE",
    "EVENT_FORMAT_VERSION",
    "EVENT_TYPES",
    "HEADER_FIELDS",
    "MESSAGE_FIELDS",
    "REQUEST_HEADER",
    "STEERING_MESSAGE",
    "STEP_END",
    "STEP_START",
    "SURFACE_TYPES",
    "TOOL_CALL",
    "TOOL_RESULT",
    "TURN_END",
    "TURN_START",
    "USAGE_FIELDS",
    "USER_MESSAGE",
    "EventType",
    "Field",
    "JsonType",
    "Shape",
    "vocabulary_table",
]

EVENT_FORMAT_VERSION: Final = 1
"""Bumped when a listed field changes meaning or a rule refuses what it accepted before."""

JsonType: TypeAlias = Literal["string", "integer", "number", "boolean", "object", "array", "null"]
Shape: TypeAlias = Literal["blocks", "block", "usage", "header", "config", "chunk", "seqs"]
"""A deeper shape the ledger checks on a field (``rules.SHAPE_CHECKS`` has one per name)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field of an event's ``data`` (or of a nested object such as ``usage``).

    ``types`` are the accepted JSON types (empty: any JSON value); ``shape`` names a
    deeper check; ``choices`` restricts a string to a few values.
    """

    name: str
    types: tuple[JsonType, ...]
    doc: str
    optional: bool = False
    shape: Shape | None = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EventType:
    """One known event type; ``surface``: model-visible, so it carries ``surface_op``."""

    type: str
    fields: tuple[Field, ...]
    doc: str
    surface: bool = False


def _int(name: str, doc: str, *, optional: bool = False) -> Field:
    return Field(name, ("integer",), doc, optional)


def _str(name: str, doc: str, *, optional: bool = False) -> Field:
    return Field(name, ("string",), doc, optional)


_TURN = _int("turn", "the turn this belongs to")
_STEP = _int("step", "the step (provider call) within the turn")
_CONTENT = Field("content", ("array",), "content blocks", shape="blocks")
_SOURCE = Field("source", ("object",), "who produced it, e.g. {kind: user}", optional=True)
_COMPACTION_ID = _str("compaction_id", "ties the three compaction events together")

USAGE_FIELDS: Final = (
    _int("input_tokens", "uncached input tokens"),
    _int("output_tokens", "output tokens, reasoning included"),
    Field("cache_read_tokens", ("integer", "null"), "input read from cache", optional=True),
    Field("cache_write_tokens", ("integer", "null"), "input written to cache", optional=True),
    Field("reasoning_tokens", ("integer", "null"), "part of output_tokens", optional=True),
)
"""``assistant/message`` ``usage``: provider-reported counts, each a non-negative integer."""

CONFIG_FIELDS: Final = (
    _str("provider", "provider name"),
    _str("model", "model name"),
    Field("temperature", ("number", "null"), "sampling temperature", optional=True),
    Field("max_tokens", ("integer", "null"), "output limit", optional=True),
    Field("stop", ("string", "array", "null"), "stop sequence(s), strings", optional=True),
)
"""``request/header`` ``header.config``: the compared parts of the request envelope."""

MESSAGE_FIELDS: Final = (
    Field("role", ("string",), "system, user, assistant, tool …", optional=True),
    Field("content", ("string", "array"), "text or content blocks", shape="blocks"),
)
"""One message of ``header.message_prefix``."""

HEADER_FIELDS: Final = (
    Field("config", ("object",), "provider, model, temperature, max_tokens, stop", shape="config"),
    Field("system", ("string", "null"), "system prompt", optional=True),
    Field("tools", ("array",), "tool declarations (objects)", optional=True),
    Field("message_prefix", ("array",), "messages sent before the surface", optional=True),
)
"""``request/header`` ``header``: the request envelope."""

CHUNK_FIELDS: Final = (
    _str("type", "block-start, text-delta, reasoning-delta, tool-call-delta, block-end, …"),
    _int("index", "the block this chunk belongs to (blocks open in index order)", optional=True),
    Field("block", ("object",), "block-end: the finished block", optional=True, shape="block"),
)
"""``assistant/chunk`` ``chunk``: one stream chunk as the provider sent it."""

USER_MESSAGE: Final = EventType(
    "user/message", (_CONTENT, _SOURCE), "what the user (or a compaction) said", surface=True
)
CONTEXT_MESSAGE: Final = EventType(
    "context/message", (_CONTENT, _SOURCE), "context the agent injected", surface=True
)
STEERING_MESSAGE: Final = EventType(
    "steering/message", (_CONTENT, _SOURCE), "guidance sent mid-turn", surface=True
)
ASSISTANT_MESSAGE: Final = EventType(
    "assistant/message",
    (
        _TURN,
        _STEP,
        _CONTENT,
        Field("provenance", ("object",), "provider and model that wrote it", optional=True),
        Field(
            "usage", ("object", "null"), "the call's reported usage", optional=True, shape="usage"
        ),
    ),
    "the durable reply of one provider call, inside its step",
    surface=True,
)
TOOL_RESULT: Final = EventType(
    "tool/result",
    (
        _str("call_id", "the tool call it answers"),
        _CONTENT,
        Field("is_error", ("boolean", "null"), "the tool failed", optional=True),
        _int("turn", "the turn", optional=True),
        _int("step", "the step", optional=True),
    ),
    "what a tool returned",
    surface=True,
)
ASSISTANT_CHUNK: Final = EventType(
    "assistant/chunk",
    (_TURN, _STEP, Field("chunk", ("object",), "the stream chunk", shape="chunk")),
    "one chunk of the provider's stream",
)
TOOL_CALL: Final = EventType(
    "tool/call",
    (
        _str("call_id", "the call id"),
        _str("name", "the tool"),
        Field("arguments", (), "arguments as the model sent them", optional=True),
    ),
    "a tool the agent runs",
)
REQUEST_HEADER: Final = EventType(
    "request/header",
    (
        Field("header", ("object",), "config, system, tools, message_prefix", shape="header"),
        _str("reason", "why the envelope changed", optional=True),
    ),
    "the request envelope, logged when it changes",
)
STEP_START: Final = EventType("step/start", (_TURN, _STEP), "a provider call begins")
STEP_END: Final = EventType(
    "step/end",
    (
        _TURN,
        _STEP,
        Field("aborted", ("boolean",), "the step crashed; closes it if open", optional=True),
    ),
    "the open step ends (aborted: recovery after a crash)",
)
TURN_START: Final = EventType(
    "turn/start",
    (_TURN, Field("trigger", ("object",), "what started it", optional=True)),
    "a turn begins",
)
TURN_END: Final = EventType(
    "turn/end",
    (_TURN, Field("reason", ("object",), "why it ended", optional=True)),
    "a turn ends",
)
COMPACTION_START: Final = EventType(
    "compaction/start",
    (
        _COMPACTION_ID,
        Field(
            "trigger",
            ("string",),
            "what asked for it",
            choices=("pressure", "overflow", "manual"),
        ),
        _int("start_seq", "first seq of the range"),
        _int("end_seq", "last seq of the range"),
        _int("revision", "log revision the range was chosen at"),
    ),
    "a compaction of a surface range begins",
)
COMPACTION_SUMMARY: Final = EventType(
    "compaction/summary",
    (
        _COMPACTION_ID,
        _str("summary", "the summary text"),
        Field("shadowed_seqs", ("array",), "seqs the summary replaces", shape="seqs"),
        _int("shadowed_tokens", "their estimated tokens"),
        _str("locator", "where the archive keeps the originals"),
        _str("provider", "summarizer provider", optional=True),
        _str("model", "summarizer model", optional=True),
        _int("max_tokens", "summary token limit", optional=True),
    ),
    "the summary of a compaction and where its originals are",
)
COMPACTION_END: Final = EventType(
    "compaction/end",
    (_COMPACTION_ID, _str("error", "why it failed, if it did", optional=True)),
    "a compaction ends (with error: nothing was replaced)",
)

EVENT_TYPES: Final[Mapping[str, EventType]] = MappingProxyType(
    {
        kind.type: kind
        for kind in (
            USER_MESSAGE,
            ASSISTANT_MESSAGE,
            TOOL_RESULT,
            CONTEXT_MESSAGE,
            STEERING_MESSAGE,
            ASSISTANT_CHUNK,
            TOOL_CALL,
            REQUEST_HEADER,
            STEP_START,
            STEP_END,
            TURN_START,
            TURN_END,
            COMPACTION_START,
            COMPACTION_SUMMARY,
            COMPACTION_END,
        )
    }
)
"""Every known event type by its ``type`` string."""

SURFACE_TYPES: Final = frozenset(kind.type for kind in EVENT_TYPES.values() if kind.surface)
"""The model-visible event types; only they may carry ``surface_op``."""


APPEND_RULES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "event-shape": "an event is an object with type, data, surface_op?, source_seqs? only",
        "event-type": "type is 1-128 printable characters (no NUL, control or lone surrogate)",
        "event-size": "one event is at most max_event_bytes of JSON; archive big blobs",
        "data-shape": "data is a JSON object",
        "json-value": "data holds JSON only: string keys, finite numbers, 64-bit integers, "
        "valid UTF-8 text",
        "json-depth": "data nests at most MAX_NESTING (64) levels",
        "field-missing": "a known type carries every required field of its row above",
        "field-type": "a listed field has one of its listed JSON types",
        "block-shape": "content blocks are objects with a string type, known blocks well formed",
        "usage-shape": "usage counts are non-negative integers",
        "header-shape": "tools are objects, message_prefix messages are objects, stop is text",
        "chunk-shape": "a chunk index is a non-negative integer",
        "surface-op": "surface types carry surface_op; other types carry neither surface_op "
        "nor source_seqs",
        "source-seqs": "source_seqs are distinct earlier seqs; [] only on assistant/message",
        "replace-range": "a replace names two seqs on the surface now, start no later than end",
        "replace-sources": "a replace lists every seq it hides in source_seqs",
        "tool-result-replace": "a tool/result replace hides one tool/result, changes only content",
        "step-open": "step/start only when no step is open (close a crashed one with an "
        "aborted step/end)",
        "step-end": "step/end names the open step (aborted: true with none open is a no-op)",
        "assistant-step": "assistant/message inside the open step with its turn and step",
        "assistant-sources": "an assistant/message with usage cites only assistant/chunk events "
        "of its own step",
        "chunk-order": "inside a step, chunk block indexes open in increasing order",
        "seq-order": "seqs run 0, 1, 2, … with no gaps (the ledger assigns them)",
        "corrupt-row": "a stored row decodes (reported by ledger check, never by append)",
    }
)
"""Every append rule by the id ``InvalidEventError.rule`` names."""


def _field_cell(field: Field) -> str:
    types = " \\| ".join(field.types) if field.types else "any"
    if field.choices:
        types = " \\| ".join(f'"{c}"' for c in field.choices)
    return f"`{field.name}`{'?' if field.optional else ''} ({types})"


def vocabulary_table() -> str:
    """The Markdown table of ``docs/events.md``: type, fields, surface_op, meaning."""
    lines = [
        f"Event format version {EVENT_FORMAT_VERSION}. `?` marks an optional field.",
        "",
        "| type | data fields | surface_op | meaning |",
        "|---|---|---|---|",
    ]
    for kind in EVENT_TYPES.values():
        fields = ", ".join(_field_cell(f) for f in kind.fields)
        lines.append(
            f"| `{kind.type}` | {fields} | {'required' if kind.surface else 'never'} | {kind.doc} |"
        )
    for title, nested in (
        ("`usage`", USAGE_FIELDS),
        ("`header`", HEADER_FIELDS),
        ("`header.config`", CONFIG_FIELDS),
        ("a `message_prefix` message", MESSAGE_FIELDS),
        ("`chunk`", CHUNK_FIELDS),
    ):
        lines.append(f"| {title} | {', '.join(_field_cell(f) for f in nested)} | | nested object |")
    lines += ["", "| rule | what the ledger requires |", "|---|---|"]
    lines += [f"| `{rule}` | {text} |" for rule, text in APPEND_RULES.items()]
    return "\n".join(lines)
