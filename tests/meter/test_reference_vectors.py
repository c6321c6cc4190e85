"""Known answers of the reference meter (vectors M1-M13 and the meter cases of §6.1).

Counter ``Chars4Counter`` with the seed's 4/4/4 overheads: every number is exact.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from ctxbudget.errors import ConfigError, ReplayError
from ctxbudget.kernel import Pressure
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import Baseline, Measurement, Node, TokenMeter, Usage
from ctxbudget.tokens import SEED_OVERHEADS, Chars4Counter
from tests.meter.script import READ_TOOL, USAGE, RawLog, Script, text

USAGE_34 = Usage(20, 7, 3, 4, 6)


def seed_meter(script: Script | RawLog, context_window: int = 128_000) -> TokenMeter:
    ledger = script.ledger if isinstance(script, Script) else script
    return TokenMeter(ledger, Chars4Counter(), context_window, SEED_OVERHEADS)


def test_m1_empty_session() -> None:
    """M1: nothing logged, nothing measured."""
    m = seed_meter(Script()).measure("s")
    assert m == Measurement(0, Baseline("none", 0), 0, 0, 0, (), 128_000, Pressure.NORMAL)


def test_m2_snapshots_are_detached() -> None:
    """M2 / case 8: a later append does not change an earlier measurement."""
    script = Script()
    meter = seed_meter(script)
    script.user("first")
    first = meter.measure("s")
    before = copy.deepcopy(first)
    assert (first.log_revision, first.baseline, first.total_tokens) == (
        1,
        Baseline("estimated", 10),
        10,
    )
    assert first.nodes == (Node(0, 10),)
    script.user("second")
    second = meter.measure("s")
    assert (second.log_revision, second.total_tokens) == (2, 20)
    assert second.nodes == (Node(0, 10), Node(1, 10))
    assert first == before
    assert len(first.nodes) == 1


def test_m3_header_prefix_and_tools_are_priced() -> None:
    """M3 / case 9: surface 10 + system 6 + prefix 10 + tools 22 (69 chars of JSON)."""
    script = Script()
    script.user("question")
    prefix = [{"role": "user", "content": text("prefix")}]
    script.header(system="system", message_prefix=prefix, tools=[READ_TOOL])
    m = seed_meter(script).measure("s")
    assert (m.baseline, m.total_tokens, m.log_revision) == (Baseline("estimated", 48), 48, 2)
    assert m.total_tokens > m.surface_tokens == 10


def test_m4_override_prices_another_envelope() -> None:
    """M4 / case 10: an override changes the total, never the surface fields."""
    script = Script()
    script.user("question")
    meter = seed_meter(script)
    logged = meter.measure("s")
    override = {"config": {"provider": "mock", "model": "another-model"}}
    big = meter.measure("s", {**override, "system": "large override " * 100})
    assert (logged.total_tokens, big.total_tokens) == (10, 389)
    assert (big.nodes, big.surface_tokens) == (logged.nodes, logged.surface_tokens)


def test_m5_disjoint_usage_and_signed_rewrite() -> None:
    """M5 / case 11: usage 34, durable rewrite priced +10 over the provider's output."""
    script = Script()
    script.user("before")
    durable = "a much longer rewritten durable assistant answer"
    script.call("short", durable, usage=USAGE, provider="mock", model="deepseek-v4-flash")
    m = seed_meter(script).measure("s")
    assert m.baseline == Baseline("usage", 34, USAGE_34)
    assert (m.surface_delta_tokens, m.total_tokens, m.surface_tokens) == (10, 44, 30)
    assert m.nodes == (Node(0, 10), Node(8, 20))
    assert m.log_revision == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.baseline.usage.input_tokens = 1  # type: ignore[misc, union-attr]


def test_m6_usage_below_the_heuristic_is_not_an_anchor() -> None:
    """M6 / case 12: 27 reported < 528 estimated, so the estimate anchors; replace shrinks."""
    script = Script()
    usage = {"input_tokens": 20, "output_tokens": 7}
    seq = script.call("abcd" * 512, usage=usage, system="system context")
    meter = seed_meter(script)
    assert meter.measure("s").baseline == Baseline("estimated", 528)
    script.user("short", replace=(seq, seq, [seq]))
    m = meter.measure("s")
    assert (m.baseline, m.surface_delta_tokens, m.total_tokens) == (
        Baseline("estimated", 528),
        -510,
        18,
    )
    other = meter.measure(
        "s", {"config": {"provider": "mock", "model": "other"}, "system": "system context"}
    )
    assert other.total_tokens == 18


def test_m7_estimated_anchor_without_usage() -> None:
    """M7 / case 13: no usage: the durable message anchors an estimate, delta 0 then +10."""
    script = Script()
    script.call("provider", "rewritten", system="s")
    meter = seed_meter(script)
    m = meter.measure("s")
    assert (m.baseline, m.surface_delta_tokens) == (Baseline("estimated", 16), 0)
    script.user("later")
    m = meter.measure("s")
    assert (m.surface_delta_tokens, m.total_tokens) == (10, 26)


@pytest.mark.parametrize(
    ("provenance", "provider_text", "delta", "total"),
    [("empty", None, 14, 48), ("legacy", None, 0, 34), ("exact", "", 6, 40)],
)
def test_m8_explicit_empty_versus_absent_provenance(
    provenance: str, provider_text: str | None, delta: int, total: int
) -> None:
    """M8 / case 14: ``[]`` means the provider said nothing; absent means unknown."""
    script = Script()
    script.call(
        provider_text,
        "listener injected text",
        usage=USAGE,
        provenance=provenance,
        provider="mock",
        model="deepseek-v4-flash",
    )
    m = seed_meter(script).measure("s")
    assert m.baseline == Baseline("usage", 34, USAGE_34)
    assert (m.surface_delta_tokens, m.total_tokens) == (delta, total)


def test_m9_latest_anchor_across_model_switches() -> None:
    """M9 / case 15: the newest call anchors; switching back to alpha reprices fully."""
    script = Script()
    meter = seed_meter(script, 1000)
    script.call("alpha", usage=USAGE, model="alpha", system="same envelope")
    assert meter.measure("s").baseline == Baseline("usage", 34, USAGE_34)
    beta = {"input_tokens": 100, "output_tokens": 50}
    script.call("beta response", usage=beta, step=2, model="beta")
    m = meter.measure("s")
    assert (m.baseline, m.surface_tokens) == (Baseline("usage", 150, Usage(100, 50)), 22)
    script.header(reason="change", model="alpha", system="same envelope")
    m = meter.measure("s")
    assert (m.baseline, m.surface_delta_tokens) == (Baseline("estimated", 30), 0)


@pytest.mark.parametrize(
    ("change", "kind", "total"),
    [
        ({}, "usage", 34),
        ({"tools": []}, "usage", 34),
        ({"system": "two"}, "estimated", 17),
        ({"model": "deepseek-v4-pro"}, "estimated", 17),
        ({"temperature": 0.2}, "estimated", 17),
        ({"message_prefix": [{"role": "user", "content": text("prefix")}]}, "estimated", 27),
        ({"tools": [READ_TOOL]}, "estimated", 39),
        ({"system": ""}, "estimated", 12),
    ],
)
def test_m10_envelope_invalidation(change: dict[str, object], kind: str, total: int) -> None:
    """M10 / case 16: only an equal canonical envelope reuses usage."""
    script = Script()
    script.call("provider answer", usage=USAGE, system="one")
    base = {"config": {"provider": "mock", "model": "deepseek-v4-flash"}, "system": "one"}
    config_keys = {"model", "temperature"}
    override = {k: v for k, v in {**base, **change}.items() if k not in config_keys}
    override["config"] = {**base["config"], **{k: v for k, v in change.items() if k in config_keys}}  # type: ignore[dict-item]
    m = seed_meter(script).measure("s", override)
    assert (m.baseline.kind, m.total_tokens) == (kind, total)


def test_m11_latest_header_without_surface() -> None:
    """M11 / case 17: two headers and no surface: an estimate of 0, not ``none``."""
    script = Script()
    script.header(model="deepseek-v4-flash")
    script.header(reason="change", model="deepseek-v4-pro")
    m = seed_meter(script).measure("s")
    assert (m.log_revision, m.baseline, m.total_tokens) == (2, Baseline("estimated", 0), 0)


def test_m12_seeded_append_and_replace() -> None:
    """M12 / case 18: a fresh meter over an existing log; then a shrinking replace."""
    script = Script()
    seq = script.call("long provider answer " * 100, usage=USAGE, model="m")
    script.user("new tail")
    meter = seed_meter(script)
    before = meter.measure("s")
    assert (before.baseline, before.surface_delta_tokens, before.total_tokens) == (
        Baseline("estimated", 533),
        10,
        543,
    )
    assert before.log_revision == 10
    assert sum(n.tokens for n in before.nodes) == before.surface_tokens
    replacement = script.user("replacement", replace=(seq, seq, [seq]))
    after = meter.measure("s")
    assert after.nodes == (Node(replacement, 11), Node(9, 10))
    assert (after.surface_delta_tokens, after.total_tokens, after.log_revision) == (-512, 21, 11)
    assert before.nodes == (Node(seq, 533), Node(9, 10))


def test_m13_empty_call_anchors_zero() -> None:
    """M13 / case 19: a content-less call still hosts a node priced 0."""
    script = Script()
    seq = script.call(None, "", provenance="empty", model="m")
    m = seed_meter(script).measure("s")
    assert (m.nodes, m.surface_tokens, m.total_tokens) == ((Node(seq, 0),), 0, 0)


# -- configuration and estimates (cases 1-7) ------------------------------------------------


def test_default_window_and_override() -> None:
    """Cases 1-2: 128,000 by default, any positive integer otherwise."""
    assert TokenMeter(MemoryLedger(), Chars4Counter()).context_window == 128_000
    meter = TokenMeter(MemoryLedger(), Chars4Counter(), context_window=32_000)
    assert meter.context_window == 32_000


@pytest.mark.parametrize("window", [0, -1, 1.5, float("nan"), None, True])
def test_invalid_window_is_a_config_error(window: object) -> None:
    """Case 4: capacity must be a positive integer."""
    with pytest.raises(ConfigError, match=r"context_window .* positive integer"):
        TokenMeter(MemoryLedger(), Chars4Counter(), context_window=window)  # type: ignore[arg-type]


def test_estimate_message_shapes() -> None:
    """Case 6: the five-block assistant message is 44; ``user 'abcd'`` is 9."""
    meter = seed_meter(Script())
    five = [
        {"type": "text", "text": "abcd"},
        {"type": "reasoning", "text": "ab"},
        {"type": "tool-call", "id": "c", "name": "read", "arguments": '{"x":1}'},
        {"type": "tool-result", "tool_call_id": "c", "content": text("xy"), "is_error": False},
        {"type": "future-block", "payload": "abcd"},
    ]
    assert meter.estimate_message({"role": "assistant", "content": five}) == 44
    assert meter.estimate_message({"role": "user", "content": text("abcd")}) == 9


def test_measurements_are_deeply_frozen() -> None:
    """Case 7: the result, its baseline and its nodes refuse assignment."""
    script = Script()
    script.user("x")
    m = seed_meter(script).measure("s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.total_tokens = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.baseline.tokens = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.nodes[0].tokens = 5  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        m.nodes._count = 0  # type: ignore[attr-defined]
    assert not hasattr(m.nodes, "append")


def test_capacity_and_pressure_follow_the_kernel() -> None:
    """Pressure is the kernel's ``classify(total_tokens, capacity)``."""
    script = Script()
    script.user("x" * 300)  # 75 + 8 = 83 tokens
    assert seed_meter(script, 100).measure("s").pressure is Pressure.TIGHT
    assert seed_meter(script, 90).measure("s").pressure is Pressure.CRITICAL
    assert seed_meter(script, 1000).measure("s").capacity == 1000


# -- malformed boundaries (cases 20-28) -------------------------------------------------------


def assert_replay_error_twice(meter: TokenMeter, match: str, seq: int) -> None:
    for _ in range(2):
        with pytest.raises(ReplayError, match=match) as caught:
            meter.measure("s")
        assert caught.value.seq == seq


def test_assistant_without_step() -> None:
    """Case 20."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    script.header()
    seq = script.assistant("x")
    assert_replay_error_twice(seed_meter(script), "no matching step/start", seq)


def test_overlapping_step_start() -> None:
    """Case 21."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    script.step_start(1, 1)
    seq = script.step_start(1, 2)
    assert_replay_error_twice(seed_meter(script), "arrived before turn 1/step 1 ended", seq)


def test_late_assistant() -> None:
    """Case 22."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    script.step_start()
    script.header()
    script.step_end()
    seq = script.assistant("x")
    assert_replay_error_twice(seed_meter(script), "no matching step/start", seq)


def test_mismatched_step_end() -> None:
    """Case 23."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    script.step_start(1, 1)
    seq = script.step_end(1, 2)
    assert_replay_error_twice(seed_meter(script), r"step/end .* no matching step/start", seq)


def test_source_that_is_not_a_chunk() -> None:
    """Case 24."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    cited = script.user("not a chunk")
    script.step_start()
    script.header()
    usage = {"input_tokens": 1, "output_tokens": 1}
    seq = script.assistant("x", usage=usage, sources=[cited])
    assert_replay_error_twice(seed_meter(script), "is not assistant/chunk", seq)


def test_source_from_another_step() -> None:
    """Case 25."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    script.step_start()
    script.header()
    cited = script.chunk({"type": "text-delta", "index": 0, "text": "x"}, turn=1, step=2)
    usage = {"input_tokens": 1, "output_tokens": 1}
    seq = script.assistant("x", usage=usage, sources=[cited])
    assert_replay_error_twice(seed_meter(script), "belongs to another step", seq)


@pytest.mark.parametrize(
    ("sources", "match"), [([2, 2], "repeats source seq 2"), ([99], "is not earlier")]
)
def test_repeated_and_future_sources(sources: list[int], match: str) -> None:
    """Case 26: logs the ledger would refuse, read through a raw reader."""
    log = RawLog()
    log.push("step/start", {"turn": 1, "step": 1})
    log.push("request/header", {"header": {"config": {"provider": "p", "model": "m"}}})
    log.push("assistant/chunk", {"turn": 1, "step": 1, "chunk": {"type": "finish"}})
    data = {
        "turn": 1,
        "step": 1,
        "content": text("x"),
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    seq = log.push("assistant/message", data, "append", sources)
    assert_replay_error_twice(seed_meter(log), match, seq)


def test_malformed_assistant_replacement_applies_nothing() -> None:
    """Case 27: the error comes first, and the surface is untouched."""
    script = Script(RawLog())  # the ledger refuses this log; a raw writer made it
    first = script.user("a")
    script.user("b")
    meter = seed_meter(script)
    before = meter.measure("s")
    op = {"op": "replace", "start": first, "end": first}
    seq = script.assistant("x", surface_op=op, sources=[first])
    assert_replay_error_twice(meter, "no matching step/start", seq)
    assert before.log_revision == 2


def test_corrupt_replace_range_keeps_the_cursor() -> None:
    """Case 28: an injected replace of 99..99; the fold stays before it."""
    log = RawLog()
    log.push("user/message", {"content": text("a")}, "append")
    meter = seed_meter(log)
    assert meter.measure("s").log_revision == 1
    seq = log.push("user/message", {"content": text("b")}, (99, 99), [99])
    assert_replay_error_twice(meter, "invalid current range 99-99", seq)
    log.log.pop()
    log.push("user/message", {"content": text("c")}, "append")
    assert meter.measure("s").log_revision == 2


def test_catch_up_and_reload() -> None:
    """Case 29: every read catches up to the tail; a new meter replays to the same answer."""
    script = Script()
    script.add("turn/start", {"turn": 1, "trigger": {"kind": "message"}})
    meter = seed_meter(script)
    assert meter.measure("s").log_revision == 1
    script.user("hello")
    assert meter.measure("s") == seed_meter(script).measure("s")
    assert meter.measure("s").log_revision == 2


def test_malformed_payload_names_its_seq() -> None:
    """A payload the fold cannot read is a ReplayError naming the seq, not a crash."""
    log = RawLog()
    log.push("user/message", {"content": text("ok")}, "append")
    seq = log.push("user/message", {"content": [{"type": "text", "text": 5}]}, "append")
    assert_replay_error_twice(seed_meter(log), f"user/message at seq {seq} is malformed", seq)


def test_malformed_header_names_its_seq() -> None:
    """A logged header without a config is a ReplayError, not a configuration error."""
    log = RawLog()
    seq = log.push("request/header", {"header": {"system": "no config"}})
    assert_replay_error_twice(seed_meter(log), f"request/header at seq {seq} is malformed", seq)
