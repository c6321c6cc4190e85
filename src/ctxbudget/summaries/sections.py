"""The sections every summary is written in, shared by the model prompt and the
extractive summarizer, so a checkpoint reads the same whoever wrote it."""

from __future__ import annotations

from typing import Final

__all__ = ["SECTIONS", "SECTION_NAMES", "heading"]

SECTIONS: Final = (
    ("Task", "what the user asked for and why, in their own words where wording matters"),
    ("Decisions", "choices made so far and the reason for each"),
    ("Files and code", "exact paths, functions, commands and identifiers that were touched"),
    ("Errors and fixes", "errors met, verbatim, and what fixed them (or that nothing did yet)"),
    ("Open questions", "questions not yet answered, requests not yet done"),
    ("Current state", "where the work stands at the end of the span"),
    ("Next step", "what was about to happen next"),
    ("Context", "anything else the work depends on"),
)
"""(name, what goes in it), in the order a summary lists them."""

SECTION_NAMES: Final = tuple(name for name, _ in SECTIONS)


def heading(name: str) -> str:
    """The Markdown heading line of a section."""
    return f"## {name}"
