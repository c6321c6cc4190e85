"""Anthropic Messages request bodies <-> the internal ``Request``.

The top-level ``system`` (a string or text blocks) is the system segment;
``tool_use`` blocks become ``ToolCallBlock``s (arguments as compact JSON),
``tool_result`` blocks ``ToolResultBlock``s, ``thinking`` blocks
``ReasoningBlock``s. Other blocks (documents, redacted thinking, server tools)
are kept as they came.
"""

from __future__ import annotations

import json
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
from ctxbudget.formats.memo import ANTHROPIC_TURNS
from ctxbudget.formats.request import (
    Request,
    Turn,
    check_request_pairs,
    json_copy,
    split_pending,
)
from ctxbudget.tokens import json_text

__all__ = [
    "add_system_section",
    "parse_request",
    "render_request",
]

_LABEL: Final = "Anthropic"
_ROLES: Final = frozenset({"user", "assistant"})
_SYSTEM_SOURCE_ROLE: Final = "system"

Part = Mapping[str, Any]


def _fail(where: str, problem: str, fix: str) -> FormatError:
    return FormatError(f"{_LABEL} request: {where} {problem}; {fix}")


# -- parsing ----------------------------------------------------------------------------------


def parse_request(body: Mapping[str, Any]) -> Request:
    """Parse a Messages request body; ``FormatError`` says what is wrong.

    The body is read, never changed.
    """
    if not isinstance(body, Mapping):
        raise _fail("the body", f"is a {type(body).__name__}", "pass the request as a dict")
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _fail("'messages'", "is missing or empty", "send at least one message in a list")
    turns = [_remembered_or_parsed(raw, index) for index, raw in enumerate(raw_messages)]
    check_request_pairs([t.message for t in turns], _LABEL)
    conversation, pending = split_pending(turns)
    return Request(
        "anthropic", _parse_system(body), _parse_tools(body), conversation, pending, body
    )


def _parse_system(body: Mapping[str, Any]) -> tuple[Turn, ...]:
    if "system" not in body:
        return ()
    system = body["system"]
    blocks, parts = _parse_content(system, "'system'")
    if not all(isinstance(b, TextBlock) for b in blocks):
        raise _fail("'system'", "holds blocks other than text", "send text blocks only")
    source = {"role": _SYSTEM_SOURCE_ROLE, "content": system}
    return (Turn.parsed_from(Message("system", tuple(blocks)), source, parts),)


def _parse_tools(body: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    tools = body.get("tools", [])
    if not isinstance(tools, list) or not all(isinstance(t, Mapping) for t in tools):
        raise _fail("'tools'", "is not a list of objects", "send tool declarations as a list")
    return tuple(tools)


def _remembered_or_parsed(raw: Any, index: int) -> Turn:
    turn = ANTHROPIC_TURNS.get(raw) if type(raw) is dict else None
    if turn is None:
        turn = _parse_message(raw, index)
        ANTHROPIC_TURNS.put(raw, turn)
    return turn


def _parse_message(raw: Any, index: int) -> Turn:
    if not isinstance(raw, dict | Mapping):
        raise _fail(f"messages[{index}]", f"is a {type(raw).__name__}", "use an object")
    where = f"messages[{index}]"
    role = raw.get("role")
    if role not in _ROLES:
        raise _fail(where, f"has role {role!r}", "use 'user' or 'assistant' (system is top-level)")
    if "content" not in raw:
        raise _fail(where, "has no 'content'", "give the message text or content blocks")
    blocks, parts = _parse_content(raw["content"], where)
    return Turn.parsed_from(Message(role, tuple(blocks)), raw, parts)


def _parse_content(content: Any, where: str) -> tuple[list[Block], list[Part | None]]:
    if isinstance(content, str):
        return [TextBlock(content)], [None]
    if not isinstance(content, list):
        raise _fail(where, "has content that is neither text nor a list", "send a string")
    blocks = [_parse_block(block, f"{where}.content[{i}]") for i, block in enumerate(content)]
    return blocks, list(content)


def _parse_block(block: Any, where: str) -> Block:
    if not isinstance(block, dict | Mapping) or not isinstance(block.get("type"), str):
        raise _fail(where, "is not a content block with a 'type'", "send {'type': 'text', ...}")
    kind = block["type"]
    if kind == "text":
        return TextBlock(_string(block, "text", where))
    if kind == "image":
        return ImageBlock(dict(block))
    if kind == "tool_use":
        return _parse_tool_use(block, where)
    if kind == "tool_result":
        return _parse_tool_result(block, where)
    if kind == "thinking":
        signature = block.get("signature")
        return ReasoningBlock(
            _string(block, "thinking", where), signature if isinstance(signature, str) else None
        )
    return UnknownBlock(dict(block))


def _string(block: Mapping[str, Any], key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise _fail(where, f"has no string {key!r}", f"add the {key}")
    return value


def _parse_tool_use(block: Mapping[str, Any], where: str) -> ToolCallBlock:
    tool_input = block.get("input")
    if not isinstance(tool_input, Mapping):
        raise _fail(where, "is a tool_use without an object 'input'", "send the input as a dict")
    return ToolCallBlock(
        _string(block, "id", where), _string(block, "name", where), json_text(tool_input)
    )


def _parse_tool_result(block: Mapping[str, Any], where: str) -> ToolResultBlock:
    inner: list[Block] = []
    if "content" in block:
        inner, _ = _parse_content(block["content"], where)
    return ToolResultBlock(
        _string(block, "tool_use_id", where), tuple(inner), bool(block.get("is_error", False))
    )


# -- rendering --------------------------------------------------------------------------------


def render_request(request: Request) -> dict[str, Any]:
    """The Messages body for ``request``; a new object, sharing no containers."""
    messages = [_render_turn(turn) for turn in request.turns]
    out: dict[str, Any] = {}
    for key, value in request.body.items():
        if key == "messages":
            out[key] = messages
        elif key == "tools":
            out[key] = json_copy(list(request.tools))
        elif key != "system":
            out[key] = json_copy(value)
        elif request.system:
            out[key] = _render_system(request.system[0])
    if request.system and "system" not in out:
        out["system"] = _render_system(request.system[0])
    out.setdefault("messages", messages)
    if request.tools:
        out.setdefault("tools", json_copy(list(request.tools)))
    return out


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` as a system text block of its own after the system prompt."""
    if not request.system:
        system = Turn.new_text("system", text)
    else:
        current = request.system[0]
        message = Message("system", (*current.message.content, TextBlock(text)))
        system = current.edited(message)
    return Request(
        request.format,
        (system,),
        request.tools,
        request.conversation,
        request.pending,
        request.body,
    )


def _render_system(turn: Turn) -> Any:
    return _content_value(turn, turn.source.get("content"))


def _render_turn(turn: Turn) -> dict[str, Any]:
    if turn.untouched:
        return dict(json_copy(turn.source))
    out = {k: json_copy(v) for k, v in turn.source.items() if k != "content"}
    out["role"] = turn.message.role
    out["content"] = _content_value(turn, turn.source.get("content"))
    return out


def _content_value(turn: Turn, original: Any) -> Any:
    """Text stays a string when it came as one; otherwise a list of blocks."""
    if turn.untouched:
        return json_copy(original)
    blocks = turn.message.content
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
        return blocks[0].text
    rendered = []
    for index, block in enumerate(blocks):
        raw = turn.part(index)
        if raw is not None and turn.block_untouched(index):
            rendered.append(json_copy(raw))
        else:
            rendered.append(_render_block(block, raw))
    return rendered


def _render_block(block: Block, raw: Part | None) -> dict[str, Any]:
    base: dict[str, Any] = dict(json_copy(raw)) if raw is not None else {}
    if isinstance(block, TextBlock):
        return {**base, "type": "text", "text": block.text}
    if isinstance(block, ToolResultBlock):
        return _render_tool_result(block, base)
    if isinstance(block, ToolCallBlock):
        if "input" not in base:
            base["input"] = json.loads(block.arguments)
        return {**base, "type": "tool_use", "id": block.id, "name": block.name}
    if isinstance(block, ReasoningBlock):
        thinking = {**base, "type": "thinking", "thinking": block.text}
        if block.signature is not None:
            thinking["signature"] = block.signature
        return thinking
    return dict(json_copy(block.data))


def _render_tool_result(block: ToolResultBlock, base: dict[str, Any]) -> dict[str, Any]:
    out = {**base, "type": "tool_result", "tool_use_id": block.tool_call_id}
    if block.content or "content" in base:
        out["content"] = _inner_value(block.content, base.get("content"))
    if block.is_error or "is_error" in base:
        out["is_error"] = block.is_error
    return out


def _inner_value(blocks: Sequence[Block], original: Any) -> Any:
    """A tool result's content: a string when it came as one (or is one new text)."""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
        return blocks[0].text
    return [_render_block(b, None) for b in blocks]
