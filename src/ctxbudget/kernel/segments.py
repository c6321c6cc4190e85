"""Context segments: the parts a prompt is metered in.

A segment is a plain string. The six canonical ones are named here so hosts
agree on them; any other string is a host segment, metered and reported like
the rest without being interpreted.
"""

from __future__ import annotations

from typing import Final, TypeAlias

__all__ = [
    "CANONICAL_SEGMENTS",
    "CONVERSATION",
    "MCP",
    "RULES",
    "SKILLS",
    "SYSTEM",
    "TOOLS",
    "Segment",
]

Segment: TypeAlias = str

SYSTEM: Final[Segment] = "system"
"""The system prompt, re-sent every turn."""
TOOLS: Final[Segment] = "tools"
"""Tool declarations callable this turn."""
RULES: Final[Segment] = "rules"
"""Rules and constraints injected every turn."""
SKILLS: Final[Segment] = "skills"
"""Skill descriptions."""
MCP: Final[Segment] = "mcp"
"""Capabilities declared by remote MCP servers."""
CONVERSATION: Final[Segment] = "conversation"
"""The conversation history: the only segment that keeps growing turn after turn."""

CANONICAL_SEGMENTS: Final[tuple[Segment, ...]] = (SYSTEM, TOOLS, RULES, SKILLS, MCP, CONVERSATION)
