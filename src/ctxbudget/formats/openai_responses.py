"""OpenAI Responses request bodies (``client.responses.create``) <-> the internal ``Request``.

What the current OpenAI SDK and Codex CLI send. ``instructions`` and leading
``system``/``developer`` input messages are the system segment; every other
``input`` item is one turn:

- a message (``role`` + text or ``input_text``/``output_text`` parts) keeps its role;
- ``function_call`` / ``custom_tool_call`` is an assistant ``ToolCallBlock``
  (``call_id``, ``name``, ``arguments`` or ``input``);
- ``function_call_output`` / ``custom_tool_call_output`` is a ``tool`` turn
  holding one ``ToolResultBlock``;
- ``reasoning`` is an assistant ``ReasoningBlock`` (its summary text;
  ``encrypted_content`` as the signature), kept as it came unless edited;
- any other item (web search, computer use, MCP, item references …) is kept as
  it came, as an ``UnknownBlock`` (``*_output`` items on a ``tool`` turn).

A string ``input`` is one user message and renders back as a string. With
``previous_response_id`` the calls an output answers may live on the server, so
an output without its call in ``input`` is accepted there.
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
from ctxbudget.content.pairing import check_pairs
from ctxbudget.formats._skeleton import (
    BlockParser,
    Part,
    ProviderFormat,
    block_type,
    role_of,
    string_field,
)
from ctxbudget.formats.cache import RequestCache
from ctxbudget.formats.request import Request, Turn, check_request_pairs, json_copy

__all__ = [
    "RESPONSES",
    "add_system_section",
    "parse_request",
    "render_request",
]

_SYSTEM_ROLES: Final = frozenset({"system", "developer"})
_ROLES: Final = _SYSTEM_ROLES | {"user", "assistant"}
_INSTRUCTIONS: Final = "ctxbudget:instructions"
"""The ``type`` of the source the instructions turn carries (never rendered as an item)."""
_CALLS: Final = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUTS: Final = frozenset({"function_call_output", "custom_tool_call_output"})
_OWN_BODY_KEYS: Final = frozenset(
    {"input", "instructions", "previous_response_id", "max_output_tokens", "conversation",
     "include", "truncation", "background"}
)  # fmt: skip


class _ResponsesFormat(ProviderFormat):
    """OpenAI Responses (``"openai-responses"``)."""

    name = "openai-responses"
    label = "OpenAI Responses"
    items_key = "input"
    system_keys = ("instructions",)

    def fits(self, body: Mapping[str, Any]) -> bool:
        """An ``input`` (text or a list of items) and no ``messages``."""
        return isinstance(body.get("input"), str | list) and "messages" not in body

    def has_own_marks(self, body: Mapping[str, Any]) -> bool:
        """``input``, ``instructions``, ``previous_response_id`` and the like."""
        return any(key in body for key in _OWN_BODY_KEYS)

    def parse(self, body: Mapping[str, Any], cache: RequestCache | None) -> Request:
        """Parse ``body``; a string ``input`` (a new item on every call) is not cached."""
        text_input = isinstance(body, Mapping) and isinstance(body.get("input"), str)
        return super().parse(body, None if text_input else cache)

    def raw_items(self, body: Mapping[str, Any]) -> list[Any]:
        """The ``input`` items; a string is one user message."""
        raw = body.get("input")
        if isinstance(raw, str):
            return [{"role": "user", "content": raw}]
        if not isinstance(raw, list) or not raw:
            raise self.fail("'input'", "is missing or empty", "send text or a list of input items")
        return raw

    def split_system(
        self, body: Mapping[str, Any], turns: list[Turn]
    ) -> tuple[tuple[Turn, ...], list[Turn]]:
        """``instructions``, then the leading system and developer messages."""
        system: list[Turn] = []
        instructions = body.get("instructions")
        if instructions is not None:
            if not isinstance(instructions, str):
                raise self.fail(
                    "'instructions'", "is not a string", "send the instructions as text"
                )
            source = {"type": _INSTRUCTIONS, "content": instructions}
            system.append(Turn.parsed_from(_system_text(instructions), source, [None]))
        leading = 0
        while leading < len(turns) and turns[leading].message.role in _SYSTEM_ROLES:
            leading += 1
        return (*system, *turns[:leading]), turns[leading:]

    def check_pairs(self, body: Mapping[str, Any], turns: Sequence[Turn]) -> None:
        """Every call needs its output; outputs may answer server-side calls when the body
        continues a stored response (``previous_response_id``)."""
        if body.get("previous_response_id") is None:
            check_request_pairs([t.message for t in turns], self.label)
            return
        report = check_pairs([t.message for t in turns])
        if report.unanswered_calls:
            check_request_pairs([t.message for t in turns], self.label)

    def parse_item(self, raw: Any, where: str) -> Turn:
        """One input item as a turn."""
        kind = raw.get("type", "message")
        if not isinstance(kind, str):
            raise self.fail(where, f"has type {kind!r}", "give each item a string 'type'")
        if kind == "message":
            return self._parse_message(raw, where)
        if kind in _CALLS:
            arguments = string_field(raw, _CALLS[kind], where, self)
            call = ToolCallBlock(
                string_field(raw, "call_id", where, self),
                string_field(raw, "name", where, self),
                arguments,
            )
            return Turn.parsed_from(Message("assistant", (call,)), raw, [None])
        if kind in _OUTPUTS:
            return self._parse_output(raw, where)
        if kind == "reasoning":
            return Turn.parsed_from(Message("assistant", (_reasoning(raw, where),)), raw, [None])
        role = "tool" if kind.endswith("_output") else "assistant"
        return Turn.parsed_from(Message(role, (UnknownBlock(dict(raw)),)), raw, [None])

    def _parse_message(self, raw: Mapping[str, Any], where: str) -> Turn:
        role = role_of(raw, _ROLES, where, self)
        content = raw.get("content")
        if isinstance(content, str):
            return Turn.parsed_from(Message(role, (TextBlock(content),)), raw, [None])
        blocks, parts = self._parse_parts(content, where)
        return Turn.parsed_from(Message(role, tuple(blocks)), raw, parts)

    def _parse_parts(self, content: Any, where: str) -> tuple[list[Block], list[Part | None]]:
        if not isinstance(content, list):
            raise self.fail(where, "has content that is neither text nor a list", "send a string")
        blocks: list[Block] = []
        for i, part in enumerate(content):
            part_where = f"{where}.content[{i}]"
            parser = _PART_PARSERS.get(block_type(part, part_where, self), _unknown)
            blocks.append(parser(part, part_where))
        return blocks, list(content)

    def _parse_output(self, raw: Mapping[str, Any], where: str) -> Turn:
        output = raw.get("output")
        if isinstance(output, str):
            inner: list[Block] = [TextBlock(output)]
        else:
            inner, _ = self._parse_parts(output, f"{where}.output")
        result = ToolResultBlock(string_field(raw, "call_id", where, self), tuple(inner))
        return Turn.parsed_from(Message("tool", (result,)), raw, [None])

    # -- rendering ------------------------------------------------------------------------

    def rendered_turns(self, request: Request) -> tuple[Turn, ...]:
        """System messages (not the instructions), then the conversation."""
        return tuple(t for t in request.system if not _is_instructions(t)) + request.turns

    def render_system(self, request: Request) -> dict[str, Any]:
        """``instructions``, as they came (no stage edits the system prompt)."""
        for turn in request.system:
            if _is_instructions(turn):
                texts = [b.text for b in turn.message.content if isinstance(b, TextBlock)]
                return {"instructions": "".join(texts)}
        return {}

    def render(self, request: Request) -> dict[str, Any]:
        """The Responses body; a string ``input`` stays a string while it is one message."""
        out = super().render(request)
        original = request.body.get("input")
        items = out.get("input")
        if isinstance(original, str) and isinstance(items, list) and len(items) == 1:
            only = items[0]
            plain = set(only) == {"role", "content"} and only["role"] == "user"
            if plain and isinstance(only["content"], str):
                out["input"] = only["content"]
        return out

    def render_turn(self, turn: Turn) -> dict[str, Any]:
        """An edited item, rebuilt from its block over its source."""
        out: dict[str, Any] = {k: json_copy(v) for k, v in turn.source.items()}
        kind = out.get("type", "message")
        blocks = turn.message.content
        if kind == "message" or not turn.source:
            out.pop("content", None)
            out["role"] = turn.message.role
            out["content"] = _parts_value(blocks, turn.parts, turn.source.get("content"))
            return out
        block = blocks[0]
        if isinstance(block, ToolCallBlock):
            out.update(call_id=block.id, name=block.name)
            out[_CALLS.get(kind, "arguments")] = block.arguments
        elif isinstance(block, ToolResultBlock):
            out["call_id"] = block.tool_call_id
            out["output"] = _parts_value(block.content, (), turn.source.get("output"))
        elif isinstance(block, ReasoningBlock):
            out["summary"] = [{"type": "summary_text", "text": block.text}] if block.text else []
            if block.signature is not None:
                out["encrypted_content"] = block.signature
        elif isinstance(block, UnknownBlock | ImageBlock):
            out = dict(json_copy(block.data))
        return out

    def add_system_section(self, request: Request, text: str) -> Request:
        """``request`` with ``text`` as a developer message after the system prompt.

        Not appended to ``instructions``: any separator would become part of the
        instructions' last section, and a never-trim section must stay as it was.
        """
        return request.with_system((*request.system, Turn.new_text("developer", text)))


def _system_text(text: str) -> Message:
    return Message("system", (TextBlock(text),))


def _is_instructions(turn: Turn) -> bool:
    return turn.source.get("type") == _INSTRUCTIONS


def _reasoning(raw: Mapping[str, Any], where: str) -> ReasoningBlock:
    summary = raw.get("summary", [])
    if not isinstance(summary, list):
        raise RESPONSES.fail(where, "has a 'summary' that is not a list", "send summary parts")
    texts = [string_field(p, "text", f"{where}.summary", RESPONSES) for p in summary]
    encrypted = raw.get("encrypted_content")
    return ReasoningBlock("\n\n".join(texts), encrypted if isinstance(encrypted, str) else None)


def _text_part(part: Part, where: str) -> Block:
    return TextBlock(string_field(part, "text", where, RESPONSES))


def _unknown(part: Part, where: str) -> Block:
    return UnknownBlock(dict(part))


_PART_PARSERS: Final[dict[str, BlockParser]] = {
    "input_text": _text_part,
    "output_text": _text_part,
    "input_image": lambda part, where: ImageBlock(dict(part)),
}
_TEXT_PART_TYPES: Final = frozenset({"input_text", "output_text"})


def _render_part(block: Block, raw: Part | None) -> dict[str, Any]:
    if isinstance(block, TextBlock | ReasoningBlock):
        if raw is not None and raw.get("type") in _TEXT_PART_TYPES:
            return {**json_copy(raw), "text": block.text}
        return {"type": "input_text", "text": block.text}
    if isinstance(block, ImageBlock | UnknownBlock):
        return dict(json_copy(block.data))
    raise RESPONSES.fail(
        f"a {type(block).__name__}", "cannot be a message part",
        "make tool calls and outputs items of their own",
    )  # fmt: skip


def _parts_value(blocks: Sequence[Block], parts: Sequence[Part | None], original: Any) -> Any:
    """Text stays a string when it came as one; otherwise a list of parts."""
    if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not isinstance(original, list):
        return blocks[0].text
    return [_render_part(b, parts[i] if i < len(parts) else None) for i, b in enumerate(blocks)]


RESPONSES: Final = _ResponsesFormat()
"""The Responses format."""


def parse_request(body: Mapping[str, Any], *, cache: RequestCache | None = None) -> Request:
    """Parse a Responses request body; ``FormatError`` says what is wrong."""
    return RESPONSES.parse(body, cache)


def render_request(request: Request) -> dict[str, Any]:
    """The Responses body for ``request``; a new object, sharing no containers."""
    return RESPONSES.render(request)


def add_system_section(request: Request, text: str) -> Request:
    """``request`` with ``text`` as a developer message after the system prompt."""
    return RESPONSES.add_system_section(request, text)
