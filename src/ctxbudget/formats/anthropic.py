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
from ctxbudget.formats._skeleton import (
    BlockParser,
    Part,
    ProviderFormat,
    block_type,
    listed_messages,
    role_of,
    string_field,
)
from ctxbudget.formats.cache import RequestCache
from ctxbudget.formats.request import Request, Turn, json_copy
from ctxbudget.tokens import json_text

__all__ = [
    "MESSAGES",
    "add_system_section",
    "parse_request",
    "render_request",
]

_ROLES: Final = frozenset({"user", "assistant"})
_SYSTEM_SOURCE_ROLE: Final = "system"
# What only a Messages body has (for format detection).
_OWN_BODY_KEYS: Final = frozenset(
    {"system", "stop_sequences", "top_k", "thinking", "mcp_servers", "container"}
)
_OWN_BLOCK_TYPES: Final = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "document",
     "server_tool_use", "web_search_tool_result", "search_result", "container_upload"}
)  # fmt: skip


class _MessagesFormat(ProviderFormat):
    """Anthropic Messages (``"anthropic"``)."""

    name = "anthropic"
    label = "Anthropic"
    items_key = "messages"
    system_keys = ("system",)

    def fits(self, body: Mapping[str, Any]) -> bool:
        """A ``messages`` list and ``max_tokens``, which the Messages API requires."""
        return isinstance(body.get("messages"), list) and "max_tokens" in body

    def has_own_marks(self, body: Mapping[str, Any]) -> bool:
        """A top-level ``system``, Anthropic-only keys or content block types."""
        if any(key in body for key in _OWN_BODY_KEYS):
            return True
        for message in listed_messages(body):
            content = message.get("content")
            if isinstance(content, list) and any(_own_block(b) for b in content):
                return True
        return False

    def split_system(
        self, body: Mapping[str, Any], turns: list[Turn]
    ) -> tuple[tuple[Turn, ...], list[Turn]]:
        """The top-level ``system`` is the system prompt; every message is conversation."""
        if "system" not in body:
            return (), turns
        system = body["system"]
        blocks, parts = self.parse_content(system, "'system'")
        if not all(isinstance(b, TextBlock) for b in blocks):
            raise self.fail("'system'", "holds blocks other than text", "send text blocks only")
        source = {"role": _SYSTEM_SOURCE_ROLE, "content": system}
        return (Turn.parsed_from(Message("system", tuple(blocks)), source, parts),), turns

    def parse_item(self, raw: Any, where: str) -> Turn:
        """One message as a turn."""
        role = role_of(raw, _ROLES, where, self, "use 'user' or 'assistant' (system is top-level)")
        if "content" not in raw:
            raise self.fail(where, "has no 'content'", "give the message text or content blocks")
        blocks, parts = self.parse_content(raw["content"], where)
        return Turn.parsed_from(Message(role, tuple(blocks)), raw, parts)

    def parse_content(self, content: Any, where: str) -> tuple[list[Block], list[Part | None]]:
        """A string (one text block) or a list of content blocks."""
        if isinstance(content, str):
            return [TextBlock(content)], [None]
        if not isinstance(content, list):
            raise self.fail(where, "has content that is neither text nor a list", "send a string")
        blocks: list[Block] = []
        for i, block in enumerate(content):
            block_where = f"{where}.content[{i}]"
            parser = _BLOCK_PARSERS.get(block_type(block, block_where, self), _unknown)
            blocks.append(parser(block, block_where))
        return blocks, list(content)

    def render_system(self, request: Request) -> dict[str, Any]:
        """``system``: a string when it came as one, else text blocks."""
        if not request.system:
            return {}
        turn = request.system[0]
        return {"system": self.content_value(turn, turn.source.get("content"))}

    def render_turn(self, turn: Turn) -> dict[str, Any]:
        """An edited message, rebuilt from its blocks over its source."""
        out = {k: json_copy(v) for k, v in turn.source.items() if k != "content"}
        out["role"] = turn.message.role
        out["content"] = self.content_value(turn, turn.source.get("content"))
        return out

    def content_value(self, turn: Turn, original: Any) -> Any:
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

    def add_system_section(self, request: Request, text: str) -> Request:
        """``request`` with ``text`` as a system text block of its own after the system prompt."""
        if not request.system:
            return request.with_system((Turn.new_text("system", text),))
        current = request.system[0]
        message = Message("system", (*current.message.content, TextBlock(text)))
        return request.with_system((current.edited(message),))


def _own_block(block: Any) -> bool:
    if not isinstance(block, Mapping):
        return False
    kind = block.get("type")
    return isinstance(kind, str) and (
        kind in _OWN_BLOCK_TYPES or (kind == "image" and "source" in block)
    )


# -- block parsers ----------------------------------------------------------------------------


def _text(block: Part, where: str) -> Block:
    return TextBlock(string_field(block, "text", where, MESSAGES))


def _tool_use(block: Part, where: str) -> Block:
    tool_input = block.get("input")
    if not isinstance(tool_input, Mapping):
        raise MESSAGES.fail(where, "is a tool_use without an object 'input'", "send a dict")
    return ToolCallBlock(
        string_field(block, "id", where, MESSAGES),
        string_field(block, "name", where, MESSAGES),
        json_text(tool_input),
    )


def _tool_result(block: Part, where: str) -> Block:
    inner: list[Block] = []
    if "content" in block:
        inner, _ = MESSAGES.parse_content(block["content"], where)
    return ToolResultBlock(
        string_field(block, "tool_use_id", where, MESSAGES),
        tuple(inner),
        bool(block.get("is_error", False)),
    )


def _thinking(block: Part, where: str) -> Block:
    signature = block.get("signature")
    return ReasoningBlock(
        string_field(block, "thinking", where, MESSAGES),
        signature if isinstance(signature, str) else None,
    )


def _unknown(block: Part, where: str) -> Block:
    return UnknownBlock(dict(block))


_BLOCK_PARSERS: Final[dict[str, BlockParser]] = {
    "text": _text,
    "image": lambda block, where: ImageBlock(dict(block)),
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "thinking": _thinking,
}


# -- block renderers --------------------------------------------------------------------------


def _base(raw: Part | None) -> dict[str, Any]:
    return dict(json_copy(raw)) if raw is not None else {}


def _render_text(block: TextBlock, raw: Part | None) -> dict[str, Any]:
    return {**_base(raw), "type": "text", "text": block.text}


def _render_tool_call(block: ToolCallBlock, raw: Part | None) -> dict[str, Any]:
    # The input always comes from the block's arguments: a stage that edits a call's
    # arguments must see its edit in the body, not the input the call came with.
    try:
        tool_input = json.loads(block.arguments)
    except ValueError:
        tool_input = None
    if not isinstance(tool_input, dict):
        raise MESSAGES.fail(
            f"tool call {block.id!r}", "has arguments that are not a JSON object",
            "give tool_use input as a JSON object",
        )  # fmt: skip
    return {**_base(raw), "type": "tool_use", "id": block.id, "name": block.name,
            "input": tool_input}  # fmt: skip


def _render_tool_result(block: ToolResultBlock, raw: Part | None) -> dict[str, Any]:
    base = _base(raw)
    out = {**base, "type": "tool_result", "tool_use_id": block.tool_call_id}
    if block.content or "content" in base:
        out["content"] = _inner_value(block.content, base.get("content"))
    if block.is_error or "is_error" in base:
        out["is_error"] = block.is_error
    return out


def _render_reasoning(block: ReasoningBlock, raw: Part | None) -> dict[str, Any]:
    thinking = {**_base(raw), "type": "thinking", "thinking": block.text}
    if block.signature is not None:
        thinking["signature"] = block.signature
    return thinking


def _render_kept(block: ImageBlock | UnknownBlock, raw: Part | None) -> dict[str, Any]:
    return dict(json_copy(block.data))


_BLOCK_RENDERERS: Final[dict[type, Any]] = {
    TextBlock: _render_text,
    ToolCallBlock: _render_tool_call,
    ToolResultBlock: _render_tool_result,
    ReasoningBlock: _render_reasoning,
    ImageBlock: _render_kept,
    UnknownBlock: _render_kept,
}


def _render_block(block: Block, raw: Part | None) -> dict[str, Any]:
    """One content block as a Messages block, over the block it came from."""
    rendered: dict[str, Any] = _BLOCK_RENDERERS[type(block)](block, raw)
    return rendered


def _inner_value(blocks: Sequence[Block], original: Any) -> Any:
    """A tool result's content: a string when it came as one (or is one new text)."""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
        return blocks[0].text
    return [_render_block(b, None) for b in blocks]


MESSAGES: Final = _MessagesFormat()
"""The Messages format."""


def parse_request(body: Mapping[str, Any], *, cache: RequestCache | None = None) -> Request:
    """Parse a Messages request body; ``FormatError`` says what is wrong."""
    return MESSAGES.parse(body, cache)


def render_request(request: Request) -> dict[str, Any]:
    """The Messages body for ``request``; a new object, sharing no containers."""
    return MESSAGES.render(request)


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` as a system text block of its own after the system prompt."""
    return MESSAGES.add_system_section(request, text)
