"""The example of docs/events.md, logged and measured as the page describes."""

from __future__ import annotations

from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import Chars4Counter

CALL = {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"path":"a.py"}'}
USAGE = {
    "input_tokens": 900,
    "cache_read_tokens": 12000,
    "cache_write_tokens": 300,
    "output_tokens": 40,
}


def test_the_documented_call() -> None:
    """Seqs 0-8 as in the table; three surface nodes; usage anchors plus the tool result."""
    ledger = MemoryLedger()
    step = {"turn": 1, "step": 1}
    header = {"config": {"provider": "anthropic", "model": "m"}, "system": "You are terse."}
    result = {**step, "call_id": "c1", "content": [{"type": "text", "text": "x" * 400}]}
    seqs = ledger.append_many(
        "s",
        [
            {
                "type": "user/message",
                "data": {"content": [{"type": "text", "text": "Fix the failing test"}]},
                "surface_op": "append",
            },
            {"type": "step/start", "data": step},
            {"type": "request/header", "data": {"header": header}},
            {
                "type": "assistant/chunk",
                "data": {**step, "chunk": {"type": "block-end", "index": 0, "block": CALL}},
            },
            {
                "type": "assistant/chunk",
                "data": {**step, "chunk": {"type": "usage", "usage": USAGE}},
            },
            {
                "type": "assistant/message",
                "data": {**step, "content": [CALL], "provenance": {}, "usage": USAGE},
                "surface_op": "append",
                "source_seqs": [3, 4],
            },
            {"type": "tool/call", "data": {"call_id": "c1", "name": "read", "arguments": "{}"}},
            {"type": "tool/result", "data": {**result, "is_error": False}, "surface_op": "append"},
            {"type": "step/end", "data": step},
        ],
    )
    assert seqs == list(range(9))
    m = TokenMeter(ledger, Chars4Counter()).measure("s")
    assert m.log_revision == 9
    assert [n.seq for n in m.nodes] == [0, 5, 7]
    assert m.baseline.kind == "usage"
    assert m.surface_delta_tokens == m.nodes[2].tokens == 100 + 12
    assert m.total_tokens == 13_240 + 112
