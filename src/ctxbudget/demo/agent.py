"""The demo's agent loop: logs the scripted session into a ledger, call by call.

``ScriptedAgent`` plays the agent's side: it logs each user turn, each model
call (with the usage a provider would report) and each tool result, in the event
order of ``docs/events.md``, and keeps the OpenAI Chat body it would send next.
``SimulatedProvider`` plays the provider's side offline: it "reports" usage by
counting the prompt with a tokenizer profile other than the meter's, as a real
provider's tokenizer differs from any estimate, and treats the previous prompt
as cached.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxbudget.demo.script import MODEL, SYSTEM_PROMPT, TOOLS, ModelCall
from ctxbudget.formats import meter_request, parse_request
from ctxbudget.ledger import Ledger
from ctxbudget.tokens import TokenCounter

__all__ = ["ScriptedAgent", "SimulatedProvider"]

_PROVIDER = {"provider": "openai", "model": MODEL}
_MAX_TOKENS = 1024


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


@dataclass
class SimulatedProvider:
    """Reports usage as a provider would: prompt counted by its own tokenizer, prefix cached."""

    counter: TokenCounter
    _last_prompt: int = 0

    def forget_cache(self) -> None:
        """The prompt's prefix changed (a compaction): nothing is cached any more."""
        self._last_prompt = 0

    def usage(self, body: Mapping[str, Any], call: ModelCall) -> dict[str, int]:
        """The usage of answering ``body`` with ``call``."""
        prompt = meter_request(parse_request(body, "openai"), self.counter).total()
        output = self.counter.count(call.text) + sum(
            self.counter.count(json.dumps(tool.arguments)) for tool in call.tools
        )
        cached = min(self._last_prompt, prompt)
        self._last_prompt = prompt
        return {
            "input_tokens": prompt - cached,
            "output_tokens": output,
            "cache_read_tokens": cached,
        }


@dataclass
class ScriptedAgent:
    """Logs the scripted session into ``ledger`` under ``session_id``; keeps the next body.

    ``surface`` pairs each model-visible event's seq with the OpenAI message it
    stands for, so after a compaction the agent can send what the ledger now shows.
    """

    ledger: Ledger
    session_id: str
    turn: int = 0
    step: int = 0
    surface: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    _calls: int = 0

    def _append(self, events: Iterable[Mapping[str, Any]]) -> list[int]:
        batch = list(events)
        revision = self.ledger.revision(self.session_id)
        return self.ledger.append_many(self.session_id, batch, expected_revision=revision)

    def body(self, extra_user: str | None = None) -> dict[str, Any]:
        """The OpenAI Chat body the agent sends next (with an optional new user message)."""
        messages = [{"role": "system", "content": SYSTEM_PROMPT}]
        messages += [message for _, message in self.surface]
        if extra_user is not None:
            messages.append({"role": "user", "content": extra_user})
        return {
            "model": MODEL,
            "max_tokens": _MAX_TOKENS,
            "messages": messages,
            "tools": list(TOOLS),
        }

    def start(self) -> None:
        """Log the request envelope (system prompt, tools, model) once."""
        header = {
            "config": {**_PROVIDER, "max_tokens": _MAX_TOKENS},
            "system": SYSTEM_PROMPT,
            "tools": [tool["function"] for tool in TOOLS],
        }
        self._append([{"type": "request/header", "data": {"header": header, "reason": "initial"}}])

    def user_turn(self, text: str) -> None:
        """A new user turn: ``turn/start`` and the user's message."""
        self._end_turn()
        self.turn += 1
        self.step = 0
        seqs = self._append(
            [
                {"type": "turn/start", "data": {"turn": self.turn, "trigger": {"kind": "message"}}},
                {
                    "type": "user/message",
                    "data": {"content": _text(text), "source": {"kind": "user"}},
                    "surface_op": "append",
                },
            ]
        )
        self.surface.append((seqs[1], {"role": "user", "content": text}))

    def begin_call(self) -> None:
        """Open the next step (logged before the request goes out)."""
        self.step += 1
        self._append([{"type": "step/start", "data": {"turn": self.turn, "step": self.step}}])

    def finish_call(self, call: ModelCall, usage: Mapping[str, int]) -> None:
        """Log the model's answer with its usage, then each tool call and its result."""
        ids = [f"call_{self._calls + n + 1}" for n in range(len(call.tools))]
        self._calls += len(call.tools)
        content = _text(call.text) + [
            {"type": "tool-call", "id": i, "name": t.name, "arguments": json.dumps(t.arguments)}
            for i, t in zip(ids, call.tools, strict=True)
        ]
        where = {"turn": self.turn, "step": self.step}
        events: list[dict[str, Any]] = [
            {
                "type": "assistant/message",
                "data": {
                    **where,
                    "content": content,
                    "provenance": _PROVIDER,
                    "usage": dict(usage),
                },
                "surface_op": "append",
            }
        ]
        for call_id, tool in zip(ids, call.tools, strict=True):
            events.append(
                {
                    "type": "tool/call",
                    "data": {
                        **where,
                        "call_id": call_id,
                        "name": tool.name,
                        "arguments": tool.arguments,
                    },
                }
            )
            events.append(
                {
                    "type": "tool/result",
                    "data": {
                        **where,
                        "call_id": call_id,
                        "content": _text(tool.output),
                        "is_error": False,
                    },
                    "surface_op": "append",
                }
            )
        events.append({"type": "step/end", "data": where})
        seqs = self._append(events)
        self.surface.append((seqs[0], _assistant_message(call, ids)))
        results = [
            (seq, e) for seq, e in zip(seqs, events, strict=True) if e["type"] == "tool/result"
        ]
        for seq, event in results:
            output = event["data"]["content"][0]["text"]
            self.surface.append(
                (seq, {"role": "tool", "tool_call_id": event["data"]["call_id"], "content": output})
            )

    def compacted(self, shadowed: Iterable[int], message_seq: int) -> None:
        """After a compaction: the shadowed messages become the replacing summary message."""
        hidden = set(shadowed)
        first = next(i for i, (seq, _) in enumerate(self.surface) if seq in hidden)
        kept = [(seq, m) for seq, m in self.surface if seq not in hidden]
        (event,) = self.ledger.events(self.session_id, message_seq, message_seq + 1)
        text = "\n".join(b["text"] for b in event.data["content"] if b.get("type") == "text")
        kept.insert(first, (message_seq, {"role": "user", "content": text}))
        self.surface = kept

    def _end_turn(self) -> None:
        if self.turn:
            self._append(
                [{"type": "turn/end", "data": {"turn": self.turn, "reason": {"kind": "done"}}}]
            )

    def finish(self) -> None:
        """Close the last turn."""
        self._end_turn()
        self.turn = 0


def _assistant_message(call: ModelCall, ids: list[str]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": call.text}
    if call.tools:
        message["tool_calls"] = [
            {
                "id": i,
                "type": "function",
                "function": {"name": t.name, "arguments": json.dumps(t.arguments)},
            }
            for i, t in zip(ids, call.tools, strict=True)
        ]
    return message
