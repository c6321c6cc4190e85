"""Stage 3, ``summarize``: older history turns become a section of the system prompt.

The summary goes into the system prompt as a section of its own, never as a
conversation turn (seed 003): a turn would be trimmed, stubbed or summarized
again by the next request's stages, and a fake "assistant" turn puts words in
the model's mouth. The cut keeps every tool call with its result and leaves a
user message first, as both providers require.

The summarizer is only asked when dropping the older turns could make the
request fit at all; a call that cannot help would only cost time and money.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Final

from ctxbudget.content import (
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from ctxbudget.content.pairing import safe_cut_points
from ctxbudget.enforce.echoes import blocks_text
from ctxbudget.enforce.estimate import Pricer
from ctxbudget.enforce.protocols import (
    ArchiveCall,
    Original,
    SummarizeCall,
    SummaryRequest,
)
from ctxbudget.enforce.sections import has_header_line
from ctxbudget.formats import Request, Turn, add_system_section

__all__ = [
    "SUMMARY_HEADER",
    "summarize",
    "summary_cut",
    "summary_section",
    "transcript",
]

SUMMARY_HEADER: Final = "## Summary of earlier conversation"
_INSTRUCTION_ROLES: Final = frozenset({"system", "developer"})


def transcript(messages: Sequence[Message]) -> str:
    """``role: text`` lines for the summarizer; reasoning stays private and is left out."""
    lines: list[str] = []
    for message in messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                lines.append(f"{message.role}: {block.text}")
            elif isinstance(block, ToolCallBlock):
                lines.append(f"{message.role} called {block.name}({block.arguments})")
            elif isinstance(block, ToolResultBlock):
                lines.append(f"tool result {block.tool_call_id}: {blocks_text(block.content)}")
            elif isinstance(block, ImageBlock):
                lines.append(f"{message.role}: [image]")
            elif not isinstance(block, ReasoningBlock):
                lines.append(f"{message.role}: [{block.data.get('type', 'block')}]")
    return "".join(line + "\n" for line in lines)


def summary_cut(request: Request, keep_recent: int) -> int | None:
    """How many leading history turns to summarize, or ``None`` when no cut is allowed.

    The largest cut that keeps ``keep_recent`` history turns, splits no tool
    pair, leaves a user message first and summarizes no system/developer turn.
    """
    messages = request.messages()
    limit = len(request.conversation) - keep_recent
    # Instructions given mid-conversation (system/developer turns) are the
    # operator's, like the system prompt: they are kept verbatim, never summarized.
    for index, turn in enumerate(request.conversation):
        if turn.message.role in _INSTRUCTION_ROLES:
            limit = min(limit, index)
            break
    cuts = [
        cut
        for cut in safe_cut_points(messages)
        if 1 <= cut <= limit and cut < len(messages) and messages[cut].role == "user"
    ]
    return max(cuts, default=None)


def summary_section(turn_count: int, summary: str, handle: str | None) -> str:
    """The system-prompt section that stands in for ``turn_count`` summarized turns."""
    section = f"{SUMMARY_HEADER}\n[summary of earlier {turn_count} turns]\n{summary}"
    if handle is not None:
        section += f"\n[originals archived; retrieve with handle {handle}]"
    return section


def _drop_leading(request: Request, cut: int) -> Request:
    return Request(
        request.format,
        request.system,
        request.tools,
        request.conversation[cut:],
        request.pending,
        request.body,
    )


def _originals(turns: Sequence[Turn]) -> tuple[Message, ...]:
    return tuple(t.parsed if t.parsed is not None else t.message for t in turns)


def summarize(
    request: Request,
    pricer: Pricer,
    budget: int,
    *,
    keep_recent: int,
    never_trim_headers: frozenset[str],
    archive: bool,
    cost_pressure: bool,
) -> Generator[ArchiveCall | SummarizeCall, str, Request | None]:
    """Summarize the older history into a system section; ``None`` if that cannot help.

    Archives the original turns first (when ``archive``), then asks for the
    summary. A summary that is empty, or that carries a never-trim header line
    (it would forge a protected section), is not used.
    """
    cut = summary_cut(request, keep_recent)
    if cut is None:
        return None
    shorter = _drop_leading(request, cut)
    best_case = add_system_section(shorter, summary_section(cut, "", None))
    if pricer.segments(best_case).total > budget:
        return None
    older = request.conversation[:cut]
    handle: str | None = None
    if archive:
        originals = _originals(older)
        handle = yield ArchiveCall(Original("turns", originals, transcript(originals)))
    current = tuple(t.message for t in older)
    summary = yield SummarizeCall(SummaryRequest(current, transcript(current), cost_pressure))
    text = summary.strip()
    if not text or has_header_line(text, never_trim_headers | {SUMMARY_HEADER}):
        return None
    return add_system_section(shorter, summary_section(cut, text, handle))
