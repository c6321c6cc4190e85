"""Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (the session
id), ``turn_context`` (the model of the turns that follow; newer ``session_meta`` lines
also carry the base instructions, Codex's system prompt), ``response_item``
(messages, reasoning, tool calls and their outputs, as the Responses API has
them) and ``event_msg``. A call is the model output between two ``token_count``
events; the second one's ``last_token_usage`` is its usage, where
``input_tokens`` includes ``cached_input_tokens`` (``transcripts.usage``). A
``token_count`` that repeats the previous totals (Codex sends one on rate-limit
updates too) reports nothing new. ``compacted`` replaces what the model saw.
Older rollouts (bare response items after a first line with the session id)
read the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxbudget.tokens import json_text
from ctxbudget.transcripts.blocks import text_blocks
from ctxbudget.transcripts.records import Record, Transcript
from ctxbudget.transcripts.session import ImportedSession, SessionBuilder
from ctxbudget.transcripts.usage import codex_usage

__all__ = ["looks_like_codex", "read_codex"]

AGENT: Final = "codex"
_KINDS: Final = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_OUTPUTS: Final = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)


def looks_like_codex(records: tuple[Record, ...]) -> bool:
    """True when the records are Codex rollout lines."""
    return any(
        isinstance(r.value, Mapping) and r.value.get("type") in _KINDS and "payload" in r.value
        for r in records[:20]
    )


class _Rollout:
    def __init__(self, transcript: Transcript) -> None:
        self.builder = SessionBuilder(Path(transcript.path).stem, AGENT, transcript.path, "openai")
        self.model = "unknown"
        self.calls = 0
        self.outputs = 0  # output items since the last token_count
        self.totals: Any = None

    def item(self, item: Mapping[str, Any]) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(item)
        elif kind in _OUTPUTS:
            self.builder.tool_result(_string(item, "call_id"), *_output(item.get("output")))
        elif kind == "reasoning":
            texts = [s.get("text", "") for s in item.get("summary") or () if isinstance(s, Mapping)]
            text = "\n".join(t for t in texts if isinstance(t, str) and t)
            self._output([{"type": "reasoning", "text": text}] if text else [])
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._output([_tool_call(item)])
        elif kind == "web_search_call":
            self._output([dict(item)])  # a server-side tool call the model made: kept
        # Other items (ghost snapshots of the work tree, ...) are Codex's own records,
        # never sent to the model.

    def token_count(self, payload: Mapping[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, Mapping):
            return
        totals = info.get("total_token_usage")
        if totals is not None and totals == self.totals and not self.outputs:
            return
        self.totals = totals
        last = info.get("last_token_usage")
        if isinstance(last, Mapping) and self.outputs:
            self.builder.call(f"call-{self.calls}", self.model, [], codex_usage(last))
        self.calls += 1
        self.outputs = 0

    def _message(self, item: Mapping[str, Any]) -> None:
        role = item.get("role")
        blocks = []
        for part in item.get("content") or ():
            if not isinstance(part, Mapping):
                raise ValueError("message content parts must be objects")
            if part.get("type") in ("input_text", "output_text", "text"):
                blocks += text_blocks(_string(part, "text"))
            else:
                blocks.append(dict(part))
        if role == "assistant":
            self._output(blocks)
        else:
            self.builder.user(blocks, "user/message" if role == "user" else "context/message")

    def _output(self, blocks: list[dict[str, Any]]) -> None:
        self.builder.call(f"call-{self.calls}", self.model, blocks, None)
        self.outputs += 1


def read_codex(transcript: Transcript) -> list[ImportedSession]:
    """The session of one Codex rollout file."""
    rollout = _Rollout(transcript)
    for record in transcript.records:
        try:
            _line(rollout, record)
        except ValueError as exc:
            raise transcript.fail(record, str(exc)) from None
    return [rollout.builder.build()]


def _line(rollout: _Rollout, record: Record) -> None:
    value = record.value
    if not isinstance(value, Mapping):
        raise ValueError("is not a JSON object")
    kind, payload = value.get("type"), value.get("payload")
    if "payload" not in value:  # an older rollout: bare items, a first line with the id
        kind, payload = ("session_meta" if record.index == 0 else "response_item"), value
        if "record_type" in value:
            return
    if not isinstance(payload, Mapping):
        raise ValueError(f"{kind} line has no 'payload' object")
    if kind == "session_meta":
        _session_meta(rollout.builder, payload)
    elif kind == "turn_context" and isinstance(payload.get("model"), str):
        rollout.model = payload["model"]
    elif kind == "response_item":
        rollout.item(payload)
    elif kind == "compacted":
        rollout.builder.compacted(text_blocks(str(payload.get("message", ""))))
    elif kind == "event_msg" and payload.get("type") == "token_count":
        rollout.token_count(payload)


def _session_meta(builder: SessionBuilder, meta: Mapping[str, Any]) -> None:
    """The session id, provider and (in newer rollouts) the base instructions, which
    Codex sends as the system prompt."""
    if isinstance(meta.get("id"), str):
        builder.session_id = meta["id"]
    if isinstance(meta.get("model_provider"), str) and meta["model_provider"]:
        builder.provider = meta["model_provider"]
    base = meta.get("base_instructions")
    text = base.get("text") if isinstance(base, Mapping) else base
    if isinstance(text, str) and text:
        builder.envelope(text)


def _tool_call(item: Mapping[str, Any]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "local_shell_call":
        name, arguments = "local_shell", json_text(item.get("action", {}))
    else:
        name = _string(item, "name")
        arguments = item.get("arguments" if kind == "function_call" else "input", "")
        arguments = arguments if isinstance(arguments, str) else json_text(arguments)
    call_id = item.get("call_id") or item.get("id")
    if not isinstance(call_id, str):
        raise ValueError(f"{kind} has no string 'call_id'")
    return {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}


def _output(output: Any) -> tuple[list[dict[str, Any]], bool]:
    """A tool output's content and whether it failed (older rollouts wrap it in an
    object with ``content`` and ``success``)."""
    if isinstance(output, Mapping):
        return text_blocks(str(output.get("content", ""))), output.get("success") is False
    if isinstance(output, str):
        return text_blocks(output), False
    if isinstance(output, list):
        parts = [p for p in output if isinstance(p, Mapping)]
        return [_output_part(p) for p in parts], False
    raise ValueError(f"tool output is a {type(output).__name__}, not text")


def _output_part(part: Mapping[str, Any]) -> dict[str, Any]:
    if part.get("type") in ("input_text", "output_text", "text"):
        return {"type": "text", "text": str(part.get("text", ""))}
    return dict(part)


def _string(item: Mapping[str, Any], key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{item.get('type')} item has no string {key!r}")
    return value
