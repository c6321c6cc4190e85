"""OpenAI Chat Completions request bodies <-> the internal ``Request``.

Leading ``system``/``developer`` messages are the system segment; assistant
``tool_calls`` become ``ToolCallBlock``s and each ``tool`` message one
``ToolResultBlock``. Content parts this library does not model (audio, files,
refusals) are kept as they came.
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

__all__ = [
    "CHAT",
    "add_system_section",
    "parse_request",
    "render_request",
]

_SYSTEM_ROLES: Final = frozenset({"system", "developer"})
_ROLES: Final = _SYSTEM_ROLES | {"user", "assistant", "tool", "function"}
_PLAIN_TEXT_ROLES: Final = frozenset({"system", "developer", "user", "assistant"})
_UNSET: Final = object()
# What only a Chat Completions body has (for format detection).
_OWN_ROLES: Final = frozenset({"system", "developer", "tool", "function"})
_OWN_MESSAGE_KEYS: Final = frozenset({"tool_calls", "tool_call_id", "function_call", "refusal"})
_OWN_PART_TYPES: Final = frozenset({"image_url", "input_audio", "file", "refusal"})
_OWN_BODY_KEYS: Final = frozenset(
    {"max_completion_tokens", "response_format", "frequency_penalty", "presence_penalty",
     "logprobs", "n", "seed", "functions", "stream_options", "modalities", "reasoning_effort"}
)  # fmt: skip


class _ChatFormat(ProviderFormat):
    """OpenAI Chat Completions (``"openai"``)."""

    name = "openai"
    label = "OpenAI"
    items_key = "messages"

    def fits(self, body: Mapping[str, Any]) -> bool:
        """A ``messages`` list."""
        return isinstance(body.get("messages"), list)

    def has_own_marks(self, body: Mapping[str, Any]) -> bool:
        """True when ``body`` has something only Chat Completions bodies have."""
        if any(key in body for key in _OWN_BODY_KEYS):
            return True
        for message in listed_messages(body):
            role = message.get("role")
            if isinstance(role, str) and role in _OWN_ROLES:
                return True
            if any(key in message for key in _OWN_MESSAGE_KEYS):
                return True
            content = message.get("content")
            if isinstance(content, list) and any(_own_part(p) for p in content):
                return True
        return False

    def split_system(
        self, body: Mapping[str, Any], turns: list[Turn]
    ) -> tuple[tuple[Turn, ...], list[Turn]]:
        """Leading system and developer messages are the system prompt."""
        leading = 0
        while leading < len(turns) and turns[leading].message.role in _SYSTEM_ROLES:
            leading += 1
        return tuple(turns[:leading]), turns[leading:]

    def rendered_turns(self, request: Request) -> tuple[Turn, ...]:
        """System messages first, then the conversation."""
        return request.system + request.turns

    def parse_item(self, raw: Any, where: str) -> Turn:
        """One message as a turn."""
        role = raw.get("role")
        content = raw.get("content")
        plain = type(content) is str and type(role) is str and "tool_calls" not in raw
        if plain and role in _PLAIN_TEXT_ROLES:
            # The most common message by far: plain text. Parsed without the general
            # machinery because every request re-parses the whole history.
            message = Message(role, (TextBlock(content),))
            return Turn(message, raw, (None,), message)
        role = role_of(raw, _ROLES, where, self)
        if role == "tool":
            return self._parse_tool_message(raw, where)
        if content is None and role not in ("assistant", "function"):
            raise self.fail(where, "has no 'content'", "give the message text or content parts")
        blocks, parts = self._parse_content(content, where)
        if role == "assistant":
            calls = self._parse_tool_calls(raw.get("tool_calls"), where)
            blocks += [call for call, _ in calls]
            parts += [part for _, part in calls]
        return Turn.parsed_from(Message(role, tuple(blocks)), raw, parts)

    def _parse_tool_message(self, raw: Mapping[str, Any], where: str) -> Turn:
        call_id = raw.get("tool_call_id")
        if not isinstance(call_id, str):
            raise self.fail(
                where, "is a tool message without a string 'tool_call_id'", "add the id"
            )
        blocks, _ = self._parse_content(raw.get("content", ""), where)
        result = ToolResultBlock(call_id, tuple(blocks))
        return Turn.parsed_from(Message("tool", (result,)), raw, [None])

    def _parse_content(self, content: Any, where: str) -> tuple[list[Block], list[Part | None]]:
        if content is None:
            return [], []
        if isinstance(content, str):
            return [TextBlock(content)], [None]
        if not isinstance(content, list):
            raise self.fail(where, "has content that is neither text nor a list", "send a string")
        blocks: list[Block] = []
        for position, part in enumerate(content):
            part_where = f"{where}.content[{position}]"
            parser = _PART_PARSERS.get(block_type(part, part_where, self), _unknown)
            blocks.append(parser(part, part_where))
        return blocks, list(content)

    def _parse_tool_calls(self, tool_calls: Any, where: str) -> list[tuple[ToolCallBlock, Part]]:
        if tool_calls is None:
            return []
        if not isinstance(tool_calls, list):
            raise self.fail(
                where, "has 'tool_calls' that is not a list", "send a list of tool calls"
            )
        return [
            self._parse_tool_call(call, f"{where}.tool_calls[{i}]")
            for i, call in enumerate(tool_calls)
        ]

    def _parse_tool_call(self, call: Any, where: str) -> tuple[ToolCallBlock, Part]:
        if not isinstance(call, Mapping) or not isinstance(call.get("id"), str):
            raise self.fail(where, "is not a tool call with a string 'id'", "give each call its id")
        kind = call.get("type", "function")
        inner = call.get(kind) if isinstance(kind, str) else None
        if kind == "function" and isinstance(inner, Mapping):
            name, arguments = inner.get("name"), inner.get("arguments")
        elif kind == "custom" and isinstance(inner, Mapping):
            name, arguments = inner.get("name"), inner.get("input")
        else:
            raise self.fail(
                where, f"has unknown type {kind!r}", "use a 'function' or 'custom' call"
            )
        if not isinstance(name, str) or not isinstance(arguments, str):
            raise self.fail(where, "needs a string name and string arguments", "send JSON text")
        return ToolCallBlock(call["id"], name, arguments), call

    def render_turn(self, turn: Turn) -> dict[str, Any]:
        """An edited message, rebuilt from its blocks over its source."""
        message = turn.message
        skip = ("content", "tool_calls")
        out = {k: json_copy(v) for k, v in turn.source.items() if k not in skip}
        out["role"] = message.role
        if message.role == "tool":
            result = next(b for b in message.content if isinstance(b, ToolResultBlock))
            out["tool_call_id"] = result.tool_call_id
            out["content"] = self._content_value(result.content, (), turn.source.get("content", ""))
            return out
        texts = [(i, b) for i, b in enumerate(message.content) if not isinstance(b, ToolCallBlock)]
        content = self._content_value(
            [b for _, b in texts],
            [turn.part(i) for i, _ in texts],
            turn.source.get("content", _UNSET),
        )
        if content is not _UNSET:
            out["content"] = content
        calls = [(i, b) for i, b in enumerate(message.content) if isinstance(b, ToolCallBlock)]
        if calls:
            out["tool_calls"] = [_render_call(b, turn.part(i)) for i, b in calls]
        return out

    def _content_value(
        self, blocks: Sequence[Block], parts: Sequence[Part | None], original: Any
    ) -> Any:
        """Text stays a string when it came as one; otherwise a list of parts."""
        if not blocks and (original is None or original is _UNSET):
            return original
        if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
            return blocks[0].text
        rendered = []
        for index, block in enumerate(blocks):
            renderer = _PART_RENDERERS.get(type(block))
            if renderer is None:
                raise FormatError(
                    f"{self.label} request: a {type(block).__name__} cannot be a content part; "
                    "put tool calls in 'tool_calls' and tool results in 'tool' messages"
                )
            rendered.append(renderer(block, parts[index] if index < len(parts) else None))
        return rendered

    def add_system_section(self, request: Request, text: str) -> Request:
        """``request`` with ``text`` as a system message of its own after the system prompt."""
        role = request.system[0].message.role if request.system else "system"
        return request.with_system((*request.system, Turn.new_text(role, text)))


def _own_part(part: Any) -> bool:
    kind = part.get("type") if isinstance(part, Mapping) else None
    return isinstance(kind, str) and kind in _OWN_PART_TYPES


def _text_part(part: Part, where: str) -> Block:
    return TextBlock(string_field(part, "text", where, CHAT))


def _unknown(part: Part, where: str) -> Block:
    return UnknownBlock(dict(part))


_PART_PARSERS: Final[dict[str, BlockParser]] = {
    "text": _text_part,
    "image_url": lambda part, where: ImageBlock(dict(part)),
}


def _render_text(block: TextBlock | ReasoningBlock, raw: Part | None) -> dict[str, Any]:
    base = json_copy(raw) if raw is not None and raw.get("type") == "text" else {}
    return {**base, "type": "text", "text": block.text}


def _render_kept(block: ImageBlock | UnknownBlock, raw: Part | None) -> dict[str, Any]:
    return dict(json_copy(block.data))


_PART_RENDERERS: Final[dict[type, Any]] = {
    TextBlock: _render_text,
    ReasoningBlock: _render_text,
    ImageBlock: _render_kept,
    UnknownBlock: _render_kept,
}


def _render_call(block: ToolCallBlock, raw: Part | None) -> dict[str, Any]:
    base: dict[str, Any] = dict(json_copy(raw)) if raw is not None else {"type": "function"}
    kind = base.get("type", "function")
    inner = dict(base.get(kind) or {})
    if kind == "custom":
        inner.update(name=block.name, input=block.arguments)
    else:
        inner.update(name=block.name, arguments=block.arguments)
    return {**base, "id": block.id, kind: inner}


CHAT: Final = _ChatFormat()
"""The Chat Completions format."""


def parse_request(body: Mapping[str, Any], *, cache: RequestCache | None = None) -> Request:
    """Parse a Chat Completions request body; ``FormatError`` says what is wrong."""
    return CHAT.parse(body, cache)


def render_request(request: Request) -> dict[str, Any]:
    """The Chat Completions body for ``request``; a new object, sharing no containers."""
    return CHAT.render(request)


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` as a system message of its own after the system prompt."""
    return CHAT.add_system_section(request, text)
