"""Stage 3, ``summarize``: older history turns become a section of the system prompt.

The summary goes into the system prompt as a section of its own, never as a
conversation turn (seed 003): a turn would be trimmed, stubbed or summarized
again by the next request's stages, and a fake "assistant" turn puts words in
the model's mouth. The cut keeps every tool call with its result and leaves a
user message first, as both providers require.

The summarizer (``ctxbudget.summaries.Summarizer``) is only asked when dropping
the older turns could make the request fit at all; a call that cannot help would
only cost time and money. Its ``max_tokens`` is the room the budget leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ctxbudget.archives import Original
from ctxbudget.content import (
    Message,
)
from ctxbudget.content.pairing import safe_cut_points
from ctxbudget.enforce.sections import has_header_line
from ctxbudget.enforce.stage import ArchiveCall, StageContext, StageFlow, SummarizeCall
from ctxbudget.formats import Request, Turn, add_system_section
from ctxbudget.summaries import SummaryRequest

__all__ = [
    "SUMMARY_HEADER",
    "Summarize",
    "summary_cut",
    "summary_section",
]

SUMMARY_HEADER: Final = "## Summary of earlier conversation"
_INSTRUCTION_ROLES: Final = frozenset({"system", "developer"})


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


def _originals(turns: Sequence[Turn]) -> tuple[Message, ...]:
    return tuple(t.parsed if t.parsed is not None else t.message for t in turns)


@dataclass(frozen=True, slots=True)
class Summarize:
    """``summarize``: older history becomes a summary section of the system prompt."""

    name: str = "summarize"

    def available(self, context: StageContext) -> bool:
        """When the host gave (or the config named) a summarizer and ``summarize`` is on."""
        return context.can_summarize and context.config.summarize

    def run(self, request: Request, context: StageContext) -> StageFlow:
        """Summarize the older history into a system section; ``None`` if that cannot help.

        Archives the original turns first (when the host gave an archive), then
        asks for the summary. A summary that is empty, or that carries a
        never-trim header line (it would forge a protected section), is not used.
        """
        config = context.config
        cut = summary_cut(request, config.summary_keeps_recent_turns)
        if cut is None:
            return None
        shorter = request.with_conversation(request.conversation[cut:])
        best_case = add_system_section(shorter, summary_section(cut, "", None))
        room = context.budget - context.pricer.segments(best_case).total
        if room <= 0:
            return None
        older = request.conversation[:cut]
        locator: str | None = None
        if context.can_archive:
            locator = yield ArchiveCall(Original("turns", _originals(older)))
        current = tuple(t.message for t in older)
        summary = yield SummarizeCall(SummaryRequest(current, room))
        text = summary.strip()
        headers = frozenset(h.strip() for h in config.never_trim_headers) | {SUMMARY_HEADER}
        if not text or has_header_line(text, headers):
            return None
        return add_system_section(shorter, summary_section(cut, text, locator))
