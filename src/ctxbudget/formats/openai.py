"""OpenAI Chat Completions request bodies <-> the internal ``Request``.

Leading ``system``/``developer`` messages are the system segment; assistant
``tool_calls`` become ``ToolCallBlock``s and each ``tool`` message one
``ToolResultBlock``. Content parts this library does not model (images, audio,
files, refusals) are kept as they came.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxbudget.content import (
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)
from ctxbudget.errors import FormatError
from ctxbudget.formats.memo import OPENAI_TURNS
from ctxbudget.formats.request import (
    Request,
    Turn,
    check_request_pairs,
    json_copy,
    split_pending,
)

__all__ = [
    "add_system_section",
    "parse_request",
    "render_request",
]

_LABEL: Final = "OpenAI"
_SYSTEM_ROLES: Final = frozenset({"system", "developer"})
_ROLES: Final = _SYSTEM_ROLES | {"user", "assistant", "tool", "function"}
_PLAIN_TEXT_ROLES: Final = frozenset({"system", "developer", "user", "assistant"})
_UNSET: Final = object()

Part = Mapping[str, Any]


def _fail(where: str, problem: str, fix: str) -> FormatError:
    return FormatError(f"{_LABEL} request: {where} {problem}; {fix}")


# -- parsing ----------------------------------------------------------------------------------


def parse_request(body: Mapping[str, Any]) -> Request:
    """Parse a Chat Completions request body; ``FormatError`` says what is wrong.

    The body is read, never changed.
    """
    if not isinstance(body, Mapping):
        raise _fail("the body", f"is a {type(body).__name__}", "pass the request as a dict")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _fail("'messages'", "is missing or empty", "send at least one message in a list")
    turns = [_remembered_or_parsed(raw, index) for index, raw in enumerate(raw_messages)]
    leading = 0
    while leading < len(turns) and turns[leading].message.role in _SYSTEM_ROLES:
        leading += 1
    rest = turns[leading:]
    check_request_pairs([t.message for t in rest], _LABEL)
    conversation, pending = split_pending(rest)
    return Request(
        "openai", tuple(turns[:leading]), _parse_tools(body), conversation, pending, body
    )


def _parse_tools(body: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    tools = body.get("tools", [])
    if tools is None:
        return ()
    if not isinstance(tools, list) or not all(isinstance(t, Mapping) for t in tools):
        raise _fail("'tools'", "is not a list of objects", "send tool declarations as a list")
    return tuple(tools)


def _remembered_or_parsed(raw: Any, index: int) -> Turn:
    turn = OPENAI_TURNS.get(raw) if type(raw) is dict else None
    if turn is None:
        turn = _parse_message(raw, index)
        OPENAI_TURNS.put(raw, turn)
    return turn


def _parse_message(raw: Any, index: int) -> Turn:
    if not isinstance(raw, dict | Mapping):
        raise _fail(f"messages[{index}]", f"is a {type(raw).__name__}", "use an object")
    role = raw.get("role")
    content = raw.get("content")
    if type(content) is str and role in _PLAIN_TEXT_ROLES and "tool_calls" not in raw:
        # The most common message by far: plain text. Parsed without the general
        # machinery because every request re-parses the whole history.
        message = Message(role, (TextBlock(content),))
        return Turn(message, raw, (None,), message)
    where = f"messages[{index}]"
    if role not in _ROLES:
        raise _fail(where, f"has role {role!r}", f"use one of {sorted(_ROLES)}")
    if role == "tool":
        return _parse_tool_message(raw, where)
    if content is None and role not in ("assistant", "function"):
        raise _fail(where, "has no 'content'", "give the message text or content parts")
    blocks, parts = _parse_content(content, where)
    if role == "assistant":
        calls = _parse_tool_calls(raw.get("tool_calls"), where)
        blocks += [call for call, _ in calls]
        parts += [part for _, part in calls]
    return Turn.parsed_from(Message(role, tuple(blocks)), raw, parts)


def _parse_tool_message(raw: Mapping[str, Any], where: str) -> Turn:
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str):
        raise _fail(where, "is a tool message without a string 'tool_call_id'", "add the id")
    blocks, _ = _parse_content(raw.get("content", ""), where)
    result = ToolResultBlock(call_id, tuple(blocks))
    return Turn.parsed_from(Message("tool", (result,)), raw, [None])


def _parse_content(content: Any, where: str) -> tuple[list[Block], list[Part | None]]:
    if content is None:
        return [], []
    if isinstance(content, str):
        return [TextBlock(content)], [None]
    if not isinstance(content, list):
        raise _fail(where, "has content that is neither text nor a list", "send a string")
    blocks: list[Block] = []
    for position, part in enumerate(content):
        blocks.append(_parse_part(part, f"{where}.content[{position}]"))
    return blocks, list(content)


def _parse_part(part: Any, where: str) -> Block:
    if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
        raise _fail(where, "is not a content part with a 'type'", "send {'type': 'text', ...}")
    kind = part["type"]
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str):
            raise _fail(where, "is a text part without string 'text'", "add the text")
        return TextBlock(text)
    if kind == "image_url":
        return ImageBlock(dict(part))
    return UnknownBlock(dict(part))


def _parse_tool_calls(tool_calls: Any, where: str) -> list[tuple[ToolCallBlock, Part]]:
    if tool_calls is None:
        return []
    if not isinstance(tool_calls, list):
        raise _fail(where, "has 'tool_calls' that is not a list", "send a list of tool calls")
    return [_parse_tool_call(call, f"{where}.tool_calls[{i}]") for i, call in enumerate(tool_calls)]


def _parse_tool_call(call: Any, where: str) -> tuple[ToolCallBlock, Part]:
    if not isinstance(call, Mapping) or not isinstance(call.get("id"), str):
        raise _fail(where, "is not a tool call with a string 'id'", "give each call its id")
    kind = call.get("type", "function")
    inner = call.get(kind)
    if kind == "function" and isinstance(inner, Mapping):
        name, arguments = inner.get("name"), inner.get("arguments")
    elif kind == "custom" and isinstance(inner, Mapping):
        name, arguments = inner.get("name"), inner.get("input")
    else:
        raise _fail(where, f"has unknown type {kind!r}", "use a 'function' or 'custom' call")
    if not isinstance(name, str) or not isinstance(arguments, str):
        raise _fail(where, "needs a string name and string arguments", "send arguments as JSON")
    return ToolCallBlock(call["id"], name, arguments), call


# -- rendering --------------------------------------------------------------------------------


def render_request(request: Request) -> dict[str, Any]:
    """The Chat Completions body for ``request``; a new object, sharing no containers."""
    messages = [_render_turn(turn) for turn in request.system + request.turns]
    out: dict[str, Any] = {}
    for key, value in request.body.items():
        if key == "messages":
            out[key] = messages
        elif key == "tools":
            out[key] = json_copy(list(request.tools))
        else:
            out[key] = json_copy(value)
    out.setdefault("messages", messages)
    if request.tools:
        out.setdefault("tools", json_copy(list(request.tools)))
    return out


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` as a system message of its own after the system prompt."""
    role = request.system[0].message.role if request.system else "system"
    return _replace_system(request, (*request.system, Turn.new_text(role, text)))


def _replace_system(request: Request, system: tuple[Turn, ...]) -> Request:
    return Request(
        request.format, system, request.tools, request.conversation, request.pending, request.body
    )


def _render_turn(turn: Turn) -> dict[str, Any]:
    if turn.untouched:
        return dict(json_copy(turn.source))
    message = turn.message
    out = {k: json_copy(v) for k, v in turn.source.items() if k not in ("content", "tool_calls")}
    out["role"] = message.role
    if message.role == "tool":
        result = next(b for b in message.content if isinstance(b, ToolResultBlock))
        out["tool_call_id"] = result.tool_call_id
        out["content"] = _content_value(result.content, (), turn.source.get("content", ""))
        return out
    texts = [(i, b) for i, b in enumerate(message.content) if not isinstance(b, ToolCallBlock)]
    content = _content_value(
        [b for _, b in texts], [turn.part(i) for i, _ in texts], turn.source.get("content", _UNSET)
    )
    if content is not _UNSET:
        out["content"] = content
    calls = [(i, b) for i, b in enumerate(message.content) if isinstance(b, ToolCallBlock)]
    if calls:
        out["tool_calls"] = [_render_call(b, turn.part(i)) for i, b in calls]
    return out


def _content_value(blocks: Sequence[Block], parts: Sequence[Part | None], original: Any) -> Any:
    """Text stays a string when it came as one; otherwise a list of parts."""
    if not blocks and (original is None or original is _UNSET):
        return original
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
        return blocks[0].text
    return [_render_part(b, parts[i] if i < len(parts) else None) for i, b in enumerate(blocks)]


def _render_part(block: Block, raw: Part | None) -> dict[str, Any]:
    if isinstance(block, TextBlock | ReasoningBlock):
        base = json_copy(raw) if raw is not None and raw.get("type") == "text" else {}
        return {**base, "type": "text", "text": block.text}
    if isinstance(block, ImageBlock | UnknownBlock):
        return dict(json_copy(block.data))
    raise FormatError(
        f"{_LABEL} request: a {type(block).__name__} cannot be a content part; "
        "put tool calls in 'tool_calls' and tool results in 'tool' messages"
    )


def _render_call(block: ToolCallBlock, raw: Part | None) -> dict[str, Any]:
    base: dict[str, Any] = dict(json_copy(raw)) if raw is not None else {"type": "function"}
    kind = base.get("type", "function")
    inner = dict(base.get(kind) or {})
    if kind == "custom":
        inner.update(name=block.name, input=block.arguments)
    else:
        inner.update(name=block.name, arguments=block.arguments)
    return {**base, "id": block.id, kind: inner}
