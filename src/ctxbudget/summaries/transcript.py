"""Messages as a plain transcript, the form a summarizer model reads them in."""

from __future__ import annotations

from collections.abc import Sequence

from ctxbudget.content import (
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

__all__ = ["render_blocks", "render_message", "render_transcript"]


def render_blocks(blocks: Sequence[Block]) -> str:
    """Blocks as lines; empty texts are skipped."""
    lines: list[str] = []
    for block in blocks:
        if isinstance(block, TextBlock):
            if block.text:
                lines.append(block.text)
        elif isinstance(block, ReasoningBlock):
            if block.text:
                lines.append(f"[reasoning: {block.text}]")
        elif isinstance(block, ToolCallBlock):
            lines.append(f"[tool-call: {block.name}({block.arguments})]")
        elif isinstance(block, ToolResultBlock):
            inner = render_blocks(block.content)
            lines.append(f"[tool-result: {inner}]" if inner else "[tool-result]")
        elif isinstance(block, ImageBlock):
            lines.append("[image]")
        else:
            lines.append(f"[{block.data.get('type', 'block')}]")
    return "\n".join(lines)


def render_message(message: Message) -> str:
    """One transcript entry: ``User: …``, ``Assistant: …``, ``Tool result (call c1): …``."""
    results = [b for b in message.content if isinstance(b, ToolResultBlock)]
    if message.role == "tool" and len(results) == 1:
        result = results[0]
        label = "Tool error" if result.is_error else "Tool result"
        body = render_blocks(result.content)
        return f"{label} (call {result.tool_call_id}): {body}" if body else ""
    body = render_blocks(message.content)
    if not body:
        return ""
    if message.role in ("context", "steering"):
        return f"[{message.role.capitalize()}: {body}]"
    return f"{message.role.capitalize()}: {body}"


def render_transcript(messages: Sequence[Message]) -> str:
    """Entries joined by blank lines; messages that render empty are left out."""
    return "\n\n".join(entry for entry in map(render_message, messages) if entry)
