"""Stage 2, ``drop_oldest_tool_echoes``: old tool outputs become short stubs.

Tool echoes are the cheapest loss: what a tool returned is usually already
reflected in the assistant turn after it. The oldest go first, one at a time,
until the request fits; the newest ``keep`` are never touched. A stub stays a
tool result with the same call id, so every call keeps its result.

With an archive the original is stored first and the stub carries its handle;
without one the stub says plainly that the original is unavailable, rather than
promise a recall path that does not exist.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Final

from ctxbudget.content import (
    Block,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    block_to_json,
)
from ctxbudget.enforce.estimate import Pricer
from ctxbudget.enforce.protocols import ArchiveCall, Original
from ctxbudget.formats import Request, Turn
from ctxbudget.tokens import json_text

__all__ = [
    "STUB_ARCHIVED",
    "STUB_PREFIX",
    "STUB_UNAVAILABLE",
    "blocks_text",
    "drop_oldest_tool_echoes",
    "stub_text",
]

STUB_PREFIX: Final = "[tool_echo stripped — "
STUB_UNAVAILABLE: Final = STUB_PREFIX + "{size} bytes dropped; original unavailable]"
"""The reference's exact stub text (``—`` is U+2014); ``size`` is UTF-8 bytes."""
STUB_ARCHIVED: Final = STUB_PREFIX + "{size} bytes archived; retrieve with handle {handle}]"


def stub_text(size: int, handle: str | None) -> str:
    """The text that replaces a tool output of ``size`` UTF-8 bytes."""
    if handle is None:
        return STUB_UNAVAILABLE.format(size=size)
    return STUB_ARCHIVED.format(size=size, handle=handle)


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
        text=blocks_text(block.content),
        tool_call_id=block.tool_call_id,
        tool_name=names.get(block.tool_call_id, ""),
    )


def _with_block(turn: Turn, index: int, block: Block) -> Turn:
    content = list(turn.message.content)
    content[index] = block
    return turn.edited(Message(turn.message.role, tuple(content)))


def drop_oldest_tool_echoes(
    request: Request, pricer: Pricer, budget: int, *, keep: int, archive: bool
) -> Generator[ArchiveCall, str, Request | None]:
    """Stub history tool outputs, oldest first, until ``request`` fits ``budget``.

    Yields an ``ArchiveCall`` per output when ``archive`` is true and expects the
    handle back. Returns the new request, or ``None`` when nothing was stubbed.
    """
    turns = list(request.conversation)
    tokens = pricer.segments(request).total
    names = _tool_names(request)
    changed = False
    for t, b in _eligible(request, keep):
        if tokens <= budget:
            break
        block = turns[t].message.content[b]
        assert isinstance(block, ToolResultBlock)
        original = _original(turns[t], b, names)
        size = len(original.text.encode("utf-8"))
        if _is_stub(block) or len(stub_text(size, None)) >= len(blocks_text(block.content)):
            continue  # already a stub, or too short for a stub to save anything
        handle = (yield ArchiveCall(original)) if archive else None
        stub = ToolResultBlock(
            block.tool_call_id, (TextBlock(stub_text(size, handle)),), block.is_error
        )
        new_turn = _with_block(turns[t], b, stub)
        tokens += pricer.message(new_turn.message) - pricer.message(turns[t].message)
        turns[t] = new_turn
        changed = True
    if not changed:
        return None
    return Request(
        request.format, request.system, request.tools, tuple(turns), request.pending, request.body
    )
