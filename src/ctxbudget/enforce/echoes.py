"""Stage 2, ``drop_oldest_tool_echoes``: old tool outputs become short stubs.

Tool echoes are the cheapest loss: what a tool returned is usually already
reflected in the assistant turn after it. The oldest go first, one at a time,
until the request fits; the newest ``keep`` are never touched. A stub stays a
tool result with the same call id, so every call keeps its result.

With an archive the original is stored first and the stub carries its locator;
without one the stub says plainly that the original is unavailable, rather than
promise a recall path that does not exist. A stub is used only when it is
shorter than the output, in characters and in tokens, locator included: a short
output is kept as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ctxbudget.archives import Original
from ctxbudget.content import (
    Block,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    block_to_json,
)
from ctxbudget.enforce.stage import ArchiveCall, StageContext, StageFlow
from ctxbudget.formats import Request, Turn
from ctxbudget.tokens import json_text

__all__ = [
    "STUB_ARCHIVED",
    "STUB_PREFIX",
    "STUB_UNAVAILABLE",
    "DropOldestToolEchoes",
    "blocks_text",
    "stub_text",
]

STUB_PREFIX: Final = "[tool_echo stripped — "
STUB_UNAVAILABLE: Final = STUB_PREFIX + "{size} bytes dropped; original unavailable]"
"""The stub text of seed 003 (``—`` is U+2014); ``size`` is UTF-8 bytes."""
STUB_ARCHIVED: Final = STUB_PREFIX + "{size} bytes archived; retrieve with handle {handle}]"


def stub_text(size: int, locator: str | None) -> str:
    """The text that replaces a tool output of ``size`` UTF-8 bytes."""
    if locator is None:
        return STUB_UNAVAILABLE.format(size=size)
    return STUB_ARCHIVED.format(size=size, handle=locator)


def blocks_text(blocks: Sequence[Block]) -> str:
    """Blocks as plain text: text as is, anything else as its JSON."""
    return "\n".join(
        b.text if isinstance(b, TextBlock) else json_text(block_to_json(b)) for b in blocks
    )


def _is_stub(block: ToolResultBlock) -> bool:
    content = block.content
    return (
        len(content) == 1
        and isinstance(content[0], TextBlock)
        and content[0].text.startswith(STUB_PREFIX)
    )


def _tool_names(request: Request) -> dict[str, str]:
    return {
        block.id: block.name
        for turn in request.turns
        for block in turn.message.content
        if isinstance(block, ToolCallBlock)
    }


def _eligible(request: Request, keep: int) -> list[tuple[int, int]]:
    """(turn, block) positions of history tool outputs older than the newest ``keep``."""
    history = [
        (t, b)
        for t, turn in enumerate(request.conversation)
        for b, block in enumerate(turn.message.content)
        if isinstance(block, ToolResultBlock)
    ]
    # Pending tool outputs are the newest of all; they count toward the kept ones.
    pending_outputs = sum(len(t.message.tool_result_ids()) for t in request.pending)
    older = max(0, len(history) + pending_outputs - keep)
    return history[: min(older, len(history))]


def _original(turn: Turn, index: int, names: dict[str, str]) -> Original:
    source = turn.parsed if turn.parsed is not None else turn.message
    block = source.content[index]
    assert isinstance(block, ToolResultBlock)
    return Original(
        kind="tool_output",
        messages=(Message("tool", (block,)),),
        tool_call_id=block.tool_call_id,
        tool_name=names.get(block.tool_call_id, ""),
    )


def _with_block(turn: Turn, index: int, block: Block) -> Turn:
    content = list(turn.message.content)
    content[index] = block
    return turn.edited(Message(turn.message.role, tuple(content)))


@dataclass(frozen=True, slots=True)
class DropOldestToolEchoes:
    """``drop_oldest_tool_echoes``: stub old tool outputs, oldest first, until it fits."""

    name: str = "drop_oldest_tool_echoes"

    def available(self, context: StageContext) -> bool:
        """Always."""
        return True

    def run(self, request: Request, context: StageContext) -> StageFlow:
        """Stub history tool outputs older than the newest ``tool_outputs_kept``.

        Yields an ``ArchiveCall`` per output when the host gave an archive and
        expects the locator back. Returns ``None`` when nothing was stubbed.
        """
        pricer = context.pricer
        turns = list(request.conversation)
        tokens = pricer.segments(request).total
        names = _tool_names(request)
        changed = False
        for t, b in _eligible(request, context.config.tool_outputs_kept):
            if tokens <= context.budget:
                break
            block = turns[t].message.content[b]
            assert isinstance(block, ToolResultBlock)
            text = blocks_text(block.content)
            original = _original(turns[t], b, names)
            original_block = original.messages[0].content[0]
            assert isinstance(original_block, ToolResultBlock)
            # The size the stub reports is the original's, not what turn_trim left of it.
            size = len(blocks_text(original_block.content).encode("utf-8"))
            if _is_stub(block) or len(stub_text(size, None)) >= len(text):
                continue  # already a stub, or too short for any stub to save anything
            locator = (yield ArchiveCall(original)) if context.can_archive else None
            stub = ToolResultBlock(
                block.tool_call_id, (TextBlock(stub_text(size, locator)),), block.is_error
            )
            new_turn = _with_block(turns[t], b, stub)
            saved = pricer.message(turns[t].message) - pricer.message(new_turn.message)
            if len(stub_text(size, locator)) >= len(text) or saved <= 0:
                continue  # the locator made the stub no shorter: keep the output
            tokens -= saved
            turns[t] = new_turn
            changed = True
        return request.with_conversation(tuple(turns)) if changed else None
