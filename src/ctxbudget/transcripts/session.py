"""An imported session and the builder every reader writes its events through.

Every reader turns its agent's records into the same few calls (``user``,
``call``, ``tool_result``, ``compacted``) and the builder logs them the way the
agent loop does (``docs/events.md``): per provider call a ``step/start``, a
``request/header`` when the model changes, the ``assistant/message`` with the
recorded usage, the ``tool/result`` events of the call, then ``step/end``. A
call stays open until something that is not part of it arrives, because agents
spread one response over several records (Claude Code writes one line per
content block, each repeating the message id and usage).

The durable assistant message is exactly what the provider emitted, so it
carries no ``source_seqs`` (the meter then prices it as the provider output).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ImportedSession", "SessionBuilder"]


@dataclass(frozen=True, slots=True)
class ImportedSession:
    """One agent session read from a transcript.

    ``events`` are ready for ``ledger.append_many(session_id, events)`` on a new,
    empty session: a compaction the agent recorded becomes a ``replace`` whose
    seqs count from 0. ``agent`` names the agent (``claude-code``, ``codex``,
    ``openhands``, or the chat format's name); ``source`` the file it came from.
    """

    session_id: str
    agent: str
    events: tuple[dict[str, Any], ...]
    source: str

    @property
    def calls(self) -> int:
        """The provider calls logged (``assistant/message`` events)."""
        return sum(1 for e in self.events if e["type"] == "assistant/message")

    @property
    def calls_with_usage(self) -> int:
        """The provider calls whose usage was recorded."""
        return sum(
            1
            for e in self.events
            if e["type"] == "assistant/message" and e["data"].get("usage") is not None
        )


@dataclass
class _Call:
    key: str
    model: str
    blocks: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, int] | None = None
    results: list[dict[str, Any]] = field(default_factory=list)


class SessionBuilder:
    """Collects one session's calls and messages into ledger events."""

    def __init__(self, session_id: str, agent: str, source: str, provider: str) -> None:
        self.session_id = session_id
        self.agent = agent
        self.source = source
        self.provider = provider
        self._events: list[dict[str, Any]] = []
        self._surface: list[int] = []  # seqs the model sees now, in order
        self._open: _Call | None = None
        self._envelope: dict[str, Any] = {}
        self._logged_envelope: tuple[str | None, dict[str, Any]] | None = None
        self._turn = 1
        self._step = 0
        self.last_model: str | None = None

    def envelope(self, system: str | None, tools: Sequence[Mapping[str, Any]] = ()) -> None:
        """The system prompt and tool declarations of the calls that follow, when the
        transcript records them (Claude Code logs do not)."""
        self._envelope = {}
        if system:
            self._envelope["system"] = system
        if tools:
            self._envelope["tools"] = [dict(t) for t in tools]

    def user(self, blocks: Sequence[Mapping[str, Any]], kind: str = "user/message") -> None:
        """A message from the user (or, with ``kind="context/message"``, from the
        harness) that is not a tool result: closes the open call, starts a turn."""
        self._close()
        if self._step:
            self._turn, self._step = self._turn + 1, 0
        if blocks:
            self._surface_event(kind, {"content": list(blocks)})

    def call(
        self,
        key: str,
        model: str,
        blocks: Sequence[Mapping[str, Any]],
        usage: Mapping[str, int] | None,
    ) -> None:
        """Output of the provider call ``key`` (a message id). A record repeating the
        open call's key adds its new blocks and replaces its usage (the last record
        carries the final output count)."""
        self.last_model = model
        call = self._open
        if call is None or call.key != key:
            self._close()
            call = self._open = _Call(key, model)
        for block in blocks:
            if not _repeats(call.blocks, block):
                call.blocks.append(dict(block))
        if usage is not None:
            call.usage = dict(usage)

    def tool_result(
        self, call_id: str, content: Sequence[Mapping[str, Any]], is_error: bool
    ) -> None:
        """The result of tool call ``call_id``, logged in the step of the open call."""
        data = {"call_id": call_id, "content": list(content), "is_error": is_error}
        if self._open is not None:
            self._open.results.append(data)
        else:
            self._surface_event("tool/result", data)

    def compacted(self, summary: Sequence[Mapping[str, Any]]) -> None:
        """The agent compacted its context: ``summary`` replaces all the model saw."""
        self._close()
        if not self._surface:
            self.user(summary)
            return
        hidden = list(self._surface)
        op = {"op": "replace", "start": hidden[0], "end": hidden[-1]}
        # Not the library's own compaction (no compaction events, no archive): the kind
        # says which agent compacted, so nothing looks for a compaction id here.
        data = {
            "content": list(summary),
            "source": {"kind": "agent-compaction", "agent": self.agent},
        }
        self._events.append(
            {"type": "user/message", "data": data, "surface_op": op, "source_seqs": hidden}
        )
        self._surface = [len(self._events) - 1]

    def build(self) -> ImportedSession:
        """The session as logged so far (the open call is closed)."""
        self._close()
        return ImportedSession(self.session_id, self.agent, tuple(self._events), self.source)

    def _close(self) -> None:
        call, self._open = self._open, None
        if call is None:
            return
        self._step += 1
        where = {"turn": self._turn, "step": self._step}
        self._events.append({"type": "step/start", "data": dict(where)})
        if (call.model, self._envelope) != self._logged_envelope:
            config = {"provider": self.provider, "model": call.model}
            header = {"config": config, **self._envelope}
            self._events.append({"type": "request/header", "data": {"header": header}})
            self._logged_envelope = (call.model, self._envelope)
        data: dict[str, Any] = {
            **where,
            "content": call.blocks,
            "provenance": {"provider": self.provider, "model": call.model},
        }
        if call.usage is not None:
            data["usage"] = call.usage
        self._surface_event("assistant/message", data)
        for result in call.results:
            self._surface_event("tool/result", {**where, **result})
        self._events.append({"type": "step/end", "data": dict(where)})

    def _surface_event(self, kind: str, data: dict[str, Any]) -> None:
        self._events.append({"type": kind, "data": data, "surface_op": "append"})
        self._surface.append(len(self._events) - 1)


def _repeats(blocks: list[dict[str, Any]], block: Mapping[str, Any]) -> bool:
    """True when ``block`` is already in ``blocks`` (a record written twice)."""
    if block.get("type") == "tool-call":
        return any(b.get("type") == "tool-call" and b.get("id") == block.get("id") for b in blocks)
    return any(b == block for b in blocks)
