"""Builders for meter tests: write sessions the way the agent loop logs them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxbudget.ledger import Event, Ledger, MemoryLedger
from ctxbudget.ledger.events import ReplaceOp, freeze_json

USAGE = {
    "input_tokens": 20,
    "cache_read_tokens": 3,
    "cache_write_tokens": 4,
    "output_tokens": 7,
    "reasoning_tokens": 6,
}
"""The reference tests' usage: 20 + 3 + 4 + 7 = 34 (reasoning is inside output)."""

READ_TOOL = {"name": "read", "description": "read", "parameters": {"type": "object"}}


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def header(
    *,
    provider: str = "mock",
    model: str = "deepseek-v4-flash",
    system: str | None = None,
    tools: list[dict[str, Any]] | None = None,
    message_prefix: list[dict[str, Any]] | None = None,
    **config: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {"config": {"provider": provider, "model": model, **config}}
    if system is not None:
        out["system"] = system
    if tools is not None:
        out["tools"] = tools
    if message_prefix is not None:
        out["message_prefix"] = message_prefix
    return out


class Script:
    """Appends events to one session of a ledger and remembers their seqs."""

    def __init__(self, ledger: Ledger | RawLog | None = None, session_id: str = "s") -> None:
        self.ledger = ledger if ledger is not None else MemoryLedger()
        self.session_id = session_id

    def add(
        self,
        kind: str,
        data: dict[str, Any],
        surface_op: Any = None,
        source_seqs: Sequence[int] | None = None,
    ) -> int:
        event: dict[str, Any] = {"type": kind, "data": data}
        if surface_op is not None:
            event["surface_op"] = surface_op
        if source_seqs is not None:
            event["source_seqs"] = list(source_seqs)
        return self.ledger.append(self.session_id, event)

    def user(self, value: str, replace: tuple[int, int, list[int]] | None = None) -> int:
        op: Any = "append"
        sources = None
        if replace is not None:
            op = {"op": "replace", "start": replace[0], "end": replace[1]}
            sources = replace[2]
        return self.add("user/message", {"content": text(value)}, op, sources)

    def header(self, reason: str = "initial", **kwargs: Any) -> int:
        return self.add("request/header", {"header": header(**kwargs), "reason": reason})

    def step_start(self, turn: int = 1, step: int = 1) -> int:
        return self.add("step/start", {"turn": turn, "step": step})

    def step_end(self, turn: int = 1, step: int = 1) -> int:
        return self.add("step/end", {"turn": turn, "step": step})

    def chunk(self, chunk: dict[str, Any], turn: int = 1, step: int = 1) -> int:
        return self.add("assistant/chunk", {"turn": turn, "step": step, "chunk": chunk})

    def assistant(
        self,
        value: str | list[dict[str, Any]],
        turn: int = 1,
        step: int = 1,
        usage: dict[str, Any] | None = None,
        sources: Sequence[int] | None = None,
        surface_op: Any = "append",
    ) -> int:
        data: dict[str, Any] = {
            "turn": turn,
            "step": step,
            "content": text(value) if isinstance(value, str) else value,
            "provenance": {"provider": "mock", "model": "deepseek-v4-flash"},
        }
        if usage is not None:
            data["usage"] = usage
        return self.add("assistant/message", data, surface_op, sources)

    def stream_text(
        self, value: str | None, turn: int = 1, step: int = 1, usage: dict[str, Any] | None = None
    ) -> list[int]:
        """The chunks of a provider stream with one text block (``None``: no block)."""
        seqs = []
        if value is not None:
            seqs.append(
                self.chunk({"type": "block-start", "index": 0, "block_type": "text"}, turn, step)
            )
            seqs.append(self.chunk({"type": "text-delta", "index": 0, "text": value}, turn, step))
            block = {"type": "text", "text": value}
            seqs.append(self.chunk({"type": "block-end", "index": 0, "block": block}, turn, step))
        if usage is not None:
            seqs.append(self.chunk({"type": "usage", "usage": usage}, turn, step))
        seqs.append(self.chunk({"type": "finish", "reason": "stop"}, turn, step))
        return seqs

    def call(
        self,
        provider_text: str | None,
        durable_text: str | None = None,
        *,
        usage: dict[str, Any] | None = None,
        provenance: str = "exact",
        turn: int = 1,
        step: int = 1,
        open_step: bool = True,
        **header_kwargs: Any,
    ) -> int:
        """One step as the agent loop logs it; the assistant message's seq."""
        if open_step:
            self.step_start(turn, step)
        if header_kwargs:
            self.header(**header_kwargs)
        chunks = self.stream_text(provider_text, turn, step, usage)
        sources = {"exact": chunks, "empty": [], "legacy": None}[provenance]
        durable = provider_text if durable_text is None else durable_text
        content = text(durable) if durable else []
        seq = self.assistant(content, turn, step, usage, sources)
        self.step_end(turn, step)
        return seq


class RawLog:
    """A ``LedgerReader`` over events as given: for logs the ledger would refuse."""

    def __init__(self) -> None:
        self.log: list[Event] = []

    def push(
        self,
        kind: str,
        data: dict[str, Any],
        surface_op: Any = None,
        source_seqs: Sequence[int] | None = None,
    ) -> int:
        op = ReplaceOp(*surface_op) if isinstance(surface_op, tuple) else surface_op
        sources = None if source_seqs is None else tuple(source_seqs)
        seq = len(self.log)
        self.log.append(Event("s", seq, 0, kind, freeze_json(data), op, sources))
        return seq

    def append(self, session_id: str, event: dict[str, Any]) -> int:
        """Store ``event`` unchecked, as a writer outside the library could."""
        op = event.get("surface_op")
        if isinstance(op, dict):
            op = (op["start"], op["end"])
        return self.push(event["type"], event["data"], op, event.get("source_seqs"))

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> list[Event]:
        return self.log[start:stop] if session_id == "s" else []
