"""Never-trim sections of the system prompt.

A section opens at a line that is exactly one of the configured headers (after
trimming whitespace; no prefix or substring matches) and runs to the next
heading of the same or a higher level, so its ``###`` sub-headings stay inside.

Only the system prompt is searched. The system prompt is written by the
operator; history is not, and a header a user types into a chat must not lock
text into the budget (``docs/enforce.md``, "never-trim sections").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ctxbudget.content import TextBlock
from ctxbudget.formats import Request
from ctxbudget.tokens import TokenCounter

__all__ = [
    "Section",
    "has_header_line",
    "heading_level",
    "protected_texts",
    "protected_tokens",
    "split_sections",
]


@dataclass(frozen=True, slots=True)
class Section:
    """A run of lines; ``protected`` when it sits under a never-trim header."""

    text: str
    protected: bool


def heading_level(line: str) -> int:
    """The Markdown heading level of ``line`` (1-6), or 0 when it is no heading."""
    stripped = line.strip()
    level = len(stripped) - len(stripped.lstrip("#"))
    if 1 <= level <= 6 and (len(stripped) == level or stripped[level] == " "):
        return level
    return 0


def _lines(text: str) -> list[str]:
    # Split on "\n" only and keep it: str.splitlines() also splits on \r, \x0b,
    # \u2028 …, which would make the pieces no longer add up to the text.
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def split_sections(text: str, headers: frozenset[str]) -> tuple[Section, ...]:
    """Split ``text`` into alternating runs; joining their texts gives ``text`` back."""
    sections: list[Section] = []
    open_level = 0  # level of the open protected section, 0 when none is open
    for line in _lines(text):
        level = heading_level(line)
        if open_level and level and level <= open_level:
            open_level = 0
        if not open_level and line.strip() in headers:
            open_level = level or 6
        protected = open_level > 0
        if sections and sections[-1].protected == protected:
            sections[-1] = Section(sections[-1].text + line, protected)
        else:
            sections.append(Section(line, protected))
    return tuple(sections)


def has_header_line(text: str, headers: frozenset[str]) -> bool:
    """True when any line of ``text`` is one of ``headers``."""
    return any(line.strip() in headers for line in text.split("\n"))


def _system_texts(request: Request) -> Iterable[str]:
    for turn in request.system:
        for block in turn.message.content:
            if isinstance(block, TextBlock):
                yield block.text


def protected_texts(request: Request, headers: Iterable[str]) -> tuple[str, ...]:
    """The never-trim sections of the request's system prompt, in order."""
    wanted = frozenset(h.strip() for h in headers)
    return tuple(
        section.text
        for text in _system_texts(request)
        if has_header_line(text, wanted)
        for section in split_sections(text, wanted)
        if section.protected
    )


def protected_tokens(request: Request, headers: Iterable[str], counter: TokenCounter) -> int:
    """Tokens of the never-trim sections: the part of the budget no stage can free."""
    return sum(counter.count(text) for text in protected_texts(request, headers))
