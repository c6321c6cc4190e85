"""The one summarizer protocol, taken by compaction and by the enforcement ``summarize`` stage.

A summarizer reads messages (oldest first) and writes summary text that must fit
in ``SummaryRequest.max_tokens``. Two implementations live beside the protocol:
``ExtractiveSummarizer`` (deterministic, offline) and ``OpenAICompatibleSummarizer``
(any chat completions server; ``AsyncOpenAICompatibleSummarizer`` for async hosts).
Both write the sections of ``sections.SECTIONS`` and merge a prior checkpoint
(``checkpoint``) instead of copying it.
"""

from ctxbudget.summaries.checkpoint import (
    CHECKPOINT_CLOSE,
    CHECKPOINT_OPEN,
    CHECKPOINT_PREAMBLE,
    checkpoint_summary,
    frame_checkpoint,
)
from ctxbudget.summaries.extractive import AsyncExtractiveSummarizer, ExtractiveSummarizer
from ctxbudget.summaries.openai_compatible import (
    DEFAULT_SUMMARY_WINDOW,
    AsyncOpenAICompatibleSummarizer,
    OpenAICompatibleSummarizer,
    summary_system_prompt,
)
from ctxbudget.summaries.protocol import AsyncSummarizer, Summarizer, SummaryRequest
from ctxbudget.summaries.sections import SECTION_NAMES, SECTIONS
from ctxbudget.summaries.transcript import render_transcript

__all__ = [
    "CHECKPOINT_CLOSE",
    "CHECKPOINT_OPEN",
    "CHECKPOINT_PREAMBLE",
    "DEFAULT_SUMMARY_WINDOW",
    "SECTIONS",
    "SECTION_NAMES",
    "AsyncExtractiveSummarizer",
    "AsyncOpenAICompatibleSummarizer",
    "AsyncSummarizer",
    "ExtractiveSummarizer",
    "OpenAICompatibleSummarizer",
    "Summarizer",
    "SummaryRequest",
    "checkpoint_summary",
    "frame_checkpoint",
    "render_transcript",
    "summary_system_prompt",
]
