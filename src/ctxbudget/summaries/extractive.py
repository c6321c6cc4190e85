"""``ExtractiveSummarizer``: a deterministic, offline summary made of the span's own words.

No model is called. The summarizer picks lines from the messages by what a
continuation needs most (the task first, then file paths, errors and where the
work stands, then decisions and open questions, then the rest) and writes them in
the same sections as the model prompt (``ctxbudget.summaries.sections``). It adds
lines in that order of importance while they fit ``max_tokens`` (counted with the
conservative default counter), so a small budget keeps the task and a large one
keeps nearly everything worth keeping. A prior checkpoint in the span is parsed
and merged section by section, never nested.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final

from ctxbudget.content import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ctxbudget.errors import ConfigError
from ctxbudget.summaries.checkpoint import checkpoint_summary
from ctxbudget.summaries.protocol import SummaryRequest
from ctxbudget.summaries.sections import SECTION_NAMES, heading
from ctxbudget.summaries.transcript import render_blocks
from ctxbudget.tokens import TokenCounter, default_counter

__all__ = ["MAX_ITEM_CHARS", "AsyncExtractiveSummarizer", "ExtractiveSummarizer"]

MAX_ITEM_CHARS: Final = 240
"""Longest line the summary quotes; longer text is cut and marked with an ellipsis."""
MAX_PER_SECTION: Final = 64
"""Candidates kept per section before fitting: bounds the work on very long spans."""
SECTION_STRIDE: Final = 4
"""Lines a section gives at one rank before its next lines rank lower."""

_WORD_OPENERS: Final = "\"'`(<[{="
_WORD_CLOSERS: Final = "\"'`),;>]}=:."
"""Characters stripped from the ends of a word before it is tested as a path."""
_PATHLIKE: Final = re.compile(r"~?/?(?:[\w.-]+/)*[\w-][\w.-]*")
_EXTENSIONS: Final = frozenset(
    [
        "py",
        "pyi",
        "js",
        "jsx",
        "ts",
        "tsx",
        "md",
        "json",
        "toml",
        "yaml",
        "yml",
        "rs",
        "go",
        "c",
        "h",
        "hpp",
        "cc",
        "cpp",
        "java",
        "kt",
        "rb",
        "php",
        "sh",
        "sql",
        "txt",
        "cfg",
        "ini",
        "lock",
        "html",
        "css",
        "csv",
    ]
)
_ERROR: Final = re.compile(
    r"\b(error|exception|traceback|failed|failure|fatal|panic|cannot|can't|not found)\b", re.I
)
_DECISION: Final = re.compile(
    r"\b(decided|decide|going to|let's|chose|choose|instead|switch(?:ed)? to|we will|i will|"
    r"i'll|we'll|should|must|prefer|plan is|agreed)\b",
    re.I,
)
_TODO: Final = re.compile(r"\b(TODO|FIXME|pending|still need|not yet)\b", re.I)
_SENTENCE_END: Final = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_SPACES: Final = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class _Line:
    """A candidate line: its section, its text, how much it matters (lower first), where
    it came from (for the order lines are written in)."""

    section: str
    text: str
    rank: int
    position: int


class ExtractiveSummarizer:
    """A ``Summarizer`` that quotes the span instead of calling a model.

    ``counter`` measures the budget (default: ``default_counter()``, which errs high,
    so the summary stays within ``max_tokens`` under the usual tokenizers).
    """

    def __init__(self, counter: TokenCounter | None = None) -> None:
        self._counter = counter if counter is not None else default_counter()

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer(counter={self._counter!r})"

    def summarize(self, request: SummaryRequest) -> str:
        """The summary of ``request.messages`` in at most ``request.max_tokens`` tokens."""
        if not isinstance(request.max_tokens, int) or request.max_tokens < 1:
            raise ConfigError(
                f"ExtractiveSummarizer: max_tokens ({request.max_tokens!r}) must be a "
                "positive integer"
            )
        lines = _dedupe(_candidates(request.messages))
        return _fit(lines, request.max_tokens, self._counter)


def _candidates(messages: Sequence[Message]) -> Iterator[_Line]:
    last_assistant = max(
        (i for i, m in enumerate(messages) if m.role == "assistant" and _text(m)), default=-1
    )
    users = [
        i for i, m in enumerate(messages) if m.role == "user" and checkpoint_summary(m) is None
    ]
    for index, message in enumerate(messages):
        position = index * 1000
        prior = checkpoint_summary(message)
        if prior is not None:
            yield from _prior_lines(prior, position)
            continue
        text = _text(message)
        if message.role == "user" and text:
            rank = 0 if users and index == users[0] else 2 if index == users[-1] else 4
            yield _Line("Task", _clip(text), rank, position)
        yield from _file_lines(message, position)
        yield from _error_lines(message, position)
        yield from _sentence_lines(text, position, recent=index / max(len(messages), 1))
        if index == last_assistant:
            yield _Line("Current state", _clip(_first_sentences(text)), 1, position)
        yield from _call_lines(message, position, latest=index >= len(messages) - 2)


def _prior_lines(summary: str, position: int) -> Iterator[_Line]:
    """The lines of an earlier checkpoint, kept under their own sections."""
    ranks = {"Task": 0, "Files and code": 1, "Errors and fixes": 2, "Current state": 5}
    section = "Context"
    for offset, raw in enumerate(summary.splitlines()):
        line = raw.strip()
        if line.startswith("## "):
            name = line[3:].strip()
            section = name if name in SECTION_NAMES else "Context"
            continue
        line = line.removeprefix("- ").strip()
        if line and line != "(none)":
            yield _Line(section, _clip(line), ranks.get(section, 3), position + offset % 1000)


def _file_lines(message: Message, position: int) -> Iterator[_Line]:
    texts = [render_blocks(message.content)]
    texts += [b.arguments for b in message.content if isinstance(b, ToolCallBlock)]
    for text in texts:
        for word in text.split():
            if "/" not in word and "." not in word:
                continue
            path = word.split("::")[0].lstrip(_WORD_OPENERS).rstrip(_WORD_CLOSERS)
            if _is_path(path):
                yield _Line("Files and code", path, 1, position)


def _is_path(word: str) -> bool:
    """A file path: ``a/b``, ``/x``, ``./x``, ``~/y`` or ``name.ext`` with a known extension."""
    if "://" in word or not any(c.isalpha() for c in word) or not _PATHLIKE.fullmatch(word):
        return False
    if "/" in word.strip("/") or word.startswith(("/", "./", "../", "~/")):
        return len(word.strip("/.~")) > 0
    stem, dot, extension = word.rpartition(".")
    return bool(dot and stem and "/" not in word and extension in _EXTENSIONS)


def _error_lines(message: Message, position: int) -> Iterator[_Line]:
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            body = render_blocks(block.content)
            if block.is_error:
                yield _Line("Errors and fixes", _clip(f"{block.tool_call_id}: {body}"), 1, position)
                continue
            for line in body.splitlines():
                if _ERROR.search(line):
                    yield _Line("Errors and fixes", _clip(line), 2, position)
    if message.role == "assistant":
        for sentence in _sentences(_text(message)):
            if _ERROR.search(sentence):
                yield _Line("Errors and fixes", _clip(sentence), 3, position)


def _sentence_lines(text: str, position: int, recent: float) -> Iterator[_Line]:
    # Later questions and decisions matter more: they are the ones still open.
    boost = 0 if recent >= 0.5 else 1
    for offset, sentence in enumerate(_sentences(text)):
        if sentence.endswith(("?", "？")) or _TODO.search(sentence):
            yield _Line("Open questions", _clip(sentence), 2 + boost, position + offset % 1000)
        elif _DECISION.search(sentence):
            yield _Line("Decisions", _clip(sentence), 2 + boost, position + offset % 1000)


def _call_lines(message: Message, position: int, latest: bool) -> Iterator[_Line]:
    for block in message.content:
        if isinstance(block, ToolCallBlock):
            line = _clip(f"called {block.name}({block.arguments})")
            section, rank = ("Current state", 2) if latest else ("Context", 5)
            yield _Line(section, line, rank, position)


def _dedupe(lines: Iterable[_Line]) -> list[_Line]:
    """Each text once, at its best rank; at most ``MAX_PER_SECTION`` lines per section.

    Every ``SECTION_STRIDE`` lines a section gives, its next lines drop one rank, so a
    small budget covers every section before it lists all of one (forty file paths
    would otherwise crowd out the one error that matters).
    """
    best: dict[str, _Line] = {}
    for line in lines:
        key = line.text
        kept = best.get(key)
        if kept is None or line.rank < kept.rank:
            best[key] = line
    per_section: dict[str, list[_Line]] = {}
    for line in sorted(best.values(), key=_priority):
        bucket = per_section.setdefault(line.section, [])
        if len(bucket) < MAX_PER_SECTION:
            bucket.append(replace(line, rank=line.rank + len(bucket) // SECTION_STRIDE))
    return sorted((line for b in per_section.values() for line in b), key=_priority)


def _priority(line: _Line) -> tuple[int, int]:
    # Equal rank: the task reads best from its start, everything else from its end.
    return line.rank, line.position if line.section == "Task" else -line.position


def _fit(lines: Sequence[_Line], budget: int, counter: TokenCounter) -> str:
    chosen: list[_Line] = []
    used, opened = 0, set[str]()
    for line in lines:
        cost = counter.count(f"- {line.text}") + 1
        if line.section not in opened:
            cost += counter.count(heading(line.section)) + 2
        if used + cost <= budget:
            chosen.append(line)
            used += cost
            opened.add(line.section)
    # Counts of parts need not add up to the count of the whole; drop the least
    # important lines until the whole fits.
    text = _render(chosen)
    while chosen and counter.count(text) > budget:
        chosen.pop()
        text = _render(chosen)
    if not chosen and lines:
        return _truncate(_render(lines[:1]), budget, counter)
    return text


def _render(lines: Sequence[_Line]) -> str:
    parts: list[str] = []
    for name in SECTION_NAMES:
        members = sorted((line for line in lines if line.section == name), key=lambda x: x.position)
        if members:
            parts.append(heading(name) + "\n" + "\n".join(f"- {m.text}" for m in members))
    return "\n\n".join(parts)


def _truncate(text: str, budget: int, counter: TokenCounter) -> str:
    """The longest prefix of ``text`` (plus an ellipsis) within ``budget`` tokens."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if counter.count(text[:middle] + "…") <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low] + "…" if low else ""


def _text(message: Message) -> str:
    return "\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.text)


def _sentences(text: str) -> Iterator[str]:
    for piece in _SENTENCE_END.split(text):
        sentence = piece.strip()
        if sentence:
            yield sentence


def _first_sentences(text: str, count: int = 2) -> str:
    return " ".join(list(_sentences(text))[:count])


def _clip(text: str) -> str:
    flat = _SPACES.sub(" ", text).strip()
    return flat if len(flat) <= MAX_ITEM_CHARS else flat[: MAX_ITEM_CHARS - 1] + "…"


class AsyncExtractiveSummarizer:
    """``ExtractiveSummarizer`` for async hosts (it does no I/O, so it runs inline)."""

    def __init__(self, counter: TokenCounter | None = None) -> None:
        self.sync = ExtractiveSummarizer(counter)

    def __repr__(self) -> str:
        return f"Async{self.sync!r}"

    async def summarize(self, request: SummaryRequest) -> str:
        """Same as ``ExtractiveSummarizer.summarize``."""
        return self.sync.summarize(request)
