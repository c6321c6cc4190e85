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
    "MIN_SUMMARY_TOKENS",
    "SUMMARY_HEADER",
    "Summarize",
    "summary_cuts",
    "summary_section",
    "task_kept",
]

SUMMARY_HEADER: Final = "## Summary of earlier conversation"
_INSTRUCTION_ROLES: Final = frozenset({"system", "developer"})
_USER_FIRST: Final = frozenset({"user"})
_ANY_TURN: Final = frozenset({"user", "assistant"})
MIN_SUMMARY_TOKENS: Final = 64
"""The least room a summary is given; the stage also leaves it a tenth of what it replaces."""
_FIRST_ROLES: Final = {
    "openai": frozenset({"user", "assistant"}),
    "openai-responses": frozenset({"user", "assistant"}),
}
"""What the conversation may start with after a cut; Anthropic requires a user message."""


def task_kept(request: Request) -> int:
    """1 when the history opens with the task (a user message), kept verbatim; else 0."""
    conversation = request.conversation
    return 1 if conversation and conversation[0].message.role == "user" else 0


def summary_cuts(request: Request, keep_recent: int) -> tuple[int, ...]:
    """Where the summarized span may end, smallest first; it starts after the task.

    A cut keeps ``keep_recent`` history turns, splits no tool pair, summarizes no
    system/developer turn and leaves a message after the task that the provider
    accepts there. With the task kept (a user message) that is a user or an
    assistant turn in every format; without it, Anthropic needs a user message
    first, OpenAI Chat and Responses also take an assistant turn. Agent sessions
    are long tool loops with no user message in between: they can be summarized.
    """
    start = task_kept(request)
    roles = _FIRST_ROLES.get(request.format, _USER_FIRST) if not start else _ANY_TURN
    messages = request.messages()
    limit = len(request.conversation) - keep_recent
    # Instructions given mid-conversation (system/developer turns) are the
    # operator's, like the system prompt: they are kept verbatim, never summarized.
    for index, turn in enumerate(request.conversation):
        if turn.message.role in _INSTRUCTION_ROLES:
            limit = min(limit, index)
            break
    points = safe_cut_points(messages)
    if start and start not in points:
        return ()
    # With the task kept, some history must follow it: a task right before the
    # pending turn would read as part of the pending turn.
    end = len(request.conversation) if start else len(messages)
    return tuple(
        cut for cut in points if start < cut <= limit and cut < end and messages[cut].role in roles
    )


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
        """Summarize the fewest older turns that make the request fit; ``None`` if none do.

        Least lossy first: the task stays, and the span summarized is the shortest
        one (oldest first) that leaves the summary room enough (a tenth of what it
        replaces, at least ``MIN_SUMMARY_TOKENS``). Archives the original turns
        first (when the host gave an archive), then asks for the summary. A summary
        that is empty, or that carries a never-trim header line (it would forge a
        protected section), is not used.
        """
        config = context.config
        chosen = _shortest_span(request, context)
        if chosen is None:
            return None
        start, cut, room = chosen
        older = request.conversation[start:cut]
        locator: str | None = None
        if context.can_archive:
            locator = yield ArchiveCall(Original("turns", _originals(older)))
        current = tuple(t.message for t in older)
        summary = yield SummarizeCall(SummaryRequest(current, room))
        text = summary.strip()
        headers = frozenset(h.strip() for h in config.never_trim_headers) | {SUMMARY_HEADER}
        if not text or has_header_line(text, headers):
            return None
        kept = request.conversation[:start] + request.conversation[cut:]
        section = summary_section(cut - start, text, locator)
        return add_system_section(request.with_conversation(kept), section)


def _shortest_span(request: Request, context: StageContext) -> tuple[int, int, int] | None:
    """(start, cut, room): the shortest span to summarize that fits, with the summary's room."""
    pricer = context.pricer
    start = task_kept(request)
    total = pricer.segments(request).total
    conversation = request.conversation
    prefix = [0]
    for turn in conversation:
        prefix.append(prefix[-1] + pricer.message(turn.message))
    empty = add_system_section(request, summary_section(len(conversation), "", None))
    section_cost = pricer.segments(empty).total - total
    for cut in summary_cuts(request, context.config.summary_keeps_recent_turns):
        replaced = prefix[cut] - prefix[start]
        room = context.budget - (total - replaced + section_cost)
        if room >= max(MIN_SUMMARY_TOKENS, replaced // 10):
            kept = request.with_conversation(conversation[:start] + conversation[cut:])
            best_case = add_system_section(kept, summary_section(cut - start, "", None))
            exact_room = context.budget - pricer.segments(best_case).total
            if exact_room > 0:
                return start, cut, exact_room
    return None
