"""How a summary sits in a conversation: framed as a checkpoint the next summary can find.

Compaction replaces a span with one message holding the summary between
``<compacted-summary>`` tags, followed by the locator of the archived originals.
When a later compaction summarizes a span that starts with such a checkpoint, the
summarizers recognise it and merge it into the new summary instead of copying it.

The preamble is short on purpose: every token of framing is paid on every later
request, and it decides the smallest span worth compacting.
"""

from __future__ import annotations

from typing import Final

from ctxbudget.content import Block, Message, TextBlock

__all__ = [
    "CHECKPOINT_CLOSE",
    "CHECKPOINT_OPEN",
    "CHECKPOINT_PREAMBLE",
    "checkpoint_summary",
    "frame_checkpoint",
]

CHECKPOINT_OPEN: Final = "<compacted-summary>"
CHECKPOINT_CLOSE: Final = "</compacted-summary>"
CHECKPOINT_PREAMBLE: Final = (
    "Checkpoint: an earlier part of this conversation, condensed to save room. Take it as "
    "settled background and continue from the messages after it."
)


def frame_checkpoint(summary: str, locator: str) -> tuple[Block, ...]:
    """The content of the message that stands in for a compacted span."""
    return (
        TextBlock(f"{CHECKPOINT_PREAMBLE}\n{CHECKPOINT_OPEN}"),
        TextBlock(summary),
        TextBlock(f"{CHECKPOINT_CLOSE}\nOriginals archived as {locator}"),
    )


def checkpoint_summary(message: Message) -> str | None:
    """The summary inside ``message`` if it is a checkpoint, else ``None``."""
    text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock))
    start = text.find(CHECKPOINT_OPEN)
    if start < 0:
        return None
    end = text.find(CHECKPOINT_CLOSE, start)
    inner = text[start + len(CHECKPOINT_OPEN) : end if end >= 0 else len(text)]
    return inner.strip("\n")
