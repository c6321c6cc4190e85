"""The counter protocol every token counter implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = [
    "TokenCounter",
]


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text. ``name`` identifies the counter in reports."""

    @property
    def name(self) -> str:
        """A short identifier, e.g. ``"chars4"`` or ``"tiktoken:cl100k_base"``."""
        ...

    def count(self, text: str) -> int:
        """Tokens in ``text`` (0 for the empty string)."""
        ...
