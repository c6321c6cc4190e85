"""The one summarizer protocol, taken by compaction and by the enforcement ``summarize`` stage.

A summarizer reads messages (oldest first) and writes summary text that must fit
in ``SummaryRequest.max_tokens``. Implementations live beside the protocol.
"""

from ctxbudget.summaries.protocol import AsyncSummarizer, Summarizer, SummaryRequest

__all__ = ["AsyncSummarizer", "Summarizer", "SummaryRequest"]
