"""Claude Code transcripts: session logs and ``claude -p`` stream output.

Session logs (``~/.claude/projects/<project>/<session>.jsonl``) hold one record
per line with ``sessionId``, ``uuid``, ``parentUuid`` and ``isSidechain``. One
API response is spread over several ``assistant`` lines, one per content block,
each repeating the same ``message.id`` and ``usage`` (the last one carries the
final output count): they are merged into one call. A ``compact_boundary``
followed by a summary (``isCompactSummary``) replaces what the model saw.

``claude -p --output-format stream-json`` (and ``--verbose --output-format json``,
the same events as one array) uses ``session_id`` and marks a sub-agent's
messages with ``parent_tool_use_id``.

Sub-agent (sidechain) messages go to sessions of their own, named
``<session>/agent-<id>`` after the log's ``agentId`` or the tool call that started
them, else ``<session>/sidechain-<n>`` in order of appearance. A log holding a
rewound conversation keeps the branch continued last (``transcripts.branches``).
Synthetic messages
(``model: "<synthetic>"``: notices Claude Code writes itself) are not calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxbudget.transcripts.blocks import anthropic_blocks, tool_result_content
from ctxbudget.transcripts.branches import abandoned_records
from ctxbudget.transcripts.records import Record, Transcript
from ctxbudget.transcripts.session import ImportedSession, SessionBuilder
from ctxbudget.transcripts.usage import anthropic_usage

__all__ = ["looks_like_claude_code", "read_claude_code"]

AGENT: Final = "claude-code"
_TYPES: Final = frozenset({"user", "assistant", "system", "summary", "result"})


def looks_like_claude_code(records: tuple[Record, ...]) -> bool:
    """True when the records carry Claude Code's session fields."""
    for record in records[:20]:
        value = record.value
        if (
            isinstance(value, Mapping)
            and value.get("type") in _TYPES
            and any(k in value for k in ("sessionId", "session_id", "parentUuid"))
        ):
            return True
    return False


class _Threads:
    """One builder per conversation thread: the main one and each sidechain."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.session_id = Path(transcript.path).stem
        self.builders: dict[str, SessionBuilder] = {}
        self.parents: dict[str, tuple[str | None, bool]] = {}  # uuid -> (parent, sidechain)
        self.roots: dict[str, str] = {}  # sidechain root uuid -> thread name

    def builder(self, record: Mapping[str, Any]) -> SessionBuilder:
        session = record.get("sessionId") or record.get("session_id")
        if isinstance(session, str) and session and not self.builders:
            self.session_id = session
        name = self._thread(record)
        if name not in self.builders:
            session_id = self.session_id if name == "" else f"{self.session_id}/{name}"
            self.builders[name] = SessionBuilder(
                session_id, AGENT, self.transcript.path, "anthropic"
            )
        return self.builders[name]

    def _thread(self, record: Mapping[str, Any]) -> str:
        uuid, parent = record.get("uuid"), record.get("parentUuid")
        sidechain = bool(record.get("isSidechain"))
        if isinstance(uuid, str):
            self.parents[uuid] = (parent if isinstance(parent, str) else None, sidechain)
        task = record.get("parent_tool_use_id")
        if isinstance(task, str) and task:
            return f"agent-{task}"
        if not sidechain:
            return ""
        agent = record.get("agentId")
        if isinstance(agent, str) and agent:
            return f"agent-{agent}"
        root = self._root(uuid if isinstance(uuid, str) else "")
        return self.roots.setdefault(root, f"sidechain-{len(self.roots) + 1}")

    def _root(self, uuid: str) -> str:
        seen = set()
        while uuid not in seen:
            seen.add(uuid)
            parent, _ = self.parents.get(uuid, (None, False))
            if parent is None or not self.parents.get(parent, (None, False))[1]:
                return uuid
            uuid = parent
        return uuid


def read_claude_code(transcript: Transcript) -> list[ImportedSession]:
    """Every session (main thread first, then sidechains) in a Claude Code transcript."""
    threads = _Threads(transcript)
    for record in transcript.records:
        if not isinstance(record.value, Mapping):
            raise transcript.fail(record, "is not a JSON object")
    abandoned = abandoned_records(r.value for r in transcript.records)
    for record in transcript.records:
        value = record.value
        kind = value.get("type")
        if kind not in ("user", "assistant") or value.get("uuid") in abandoned:
            continue  # summaries, snapshots, init and result events, rewound branches
        message = value.get("message")
        if not isinstance(message, Mapping):
            raise transcript.fail(record, f"is a {kind} record without a 'message' object")
        try:
            if kind == "assistant":
                _assistant(threads.builder(value), message, value)
            else:
                _user(threads.builder(value), message, bool(value.get("isCompactSummary")))
        except ValueError as exc:
            raise transcript.fail(record, f"{kind} message: {exc}") from None
    return [builder.build() for builder in threads.builders.values()]


def _assistant(
    builder: SessionBuilder, message: Mapping[str, Any], record: Mapping[str, Any]
) -> None:
    model = message.get("model", "unknown")
    if model == "<synthetic>":
        return
    # Lines of one response share the message id; logs without one fall back to the
    # API request id, then to the line's own id (one call per line).
    key = message.get("id") or record.get("requestId") or record.get("uuid")
    if not isinstance(key, str) or not isinstance(model, str):
        raise ValueError("needs a string 'id' (or the record's 'uuid') and a string 'model'")
    usage = message.get("usage")
    recorded = anthropic_usage(usage) if isinstance(usage, Mapping) else None
    builder.call(key, model, anthropic_blocks(message.get("content", [])), recorded)


def _user(builder: SessionBuilder, message: Mapping[str, Any], summary: bool) -> None:
    content = message.get("content", "")
    blocks = anthropic_blocks(content)
    if summary:
        builder.compacted(blocks)
        return
    others = []
    for block in blocks:
        if block.get("type") == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                raise ValueError("a tool_result needs a string 'tool_use_id'")
            inner = tool_result_content(block.get("content"))
            builder.tool_result(call_id, inner, bool(block.get("is_error", False)))
        else:
            others.append(block)
    if others:
        builder.user(others)
