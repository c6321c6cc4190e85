"""Properties over random sessions with tool calls: compaction never orphans a tool result
or a call on the surface, and a committed compaction always lowers the meter's total."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from ctxbudget.archives import event_messages
from ctxbudget.compaction import (
    Compacted,
    CompactionConfig,
    CompactionRangeError,
    CompactionStalled,
    Compactor,
    NotNeeded,
    SummaryNotSmallerError,
)
from ctxbudget.content.pairing import check_pairs
from ctxbudget.errors import PlanRefusedError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import ExtractiveSummarizer
from ctxbudget.testing import FakeArchive
from ctxbudget.tokens import Chars4Counter
from tests.compaction.sessions import assistant, header, step, text, tool_result, turn, user

SID = "s"
WINDOW = 1500

words = st.text(alphabet="abcdefghij klmnop/._?", min_size=0, max_size=600)
steps = st.lists(st.tuples(words, st.integers(min_value=0, max_value=3)), min_size=1, max_size=3)
sessions = st.lists(st.tuples(words, steps), min_size=3, max_size=10)


def build(ledger: MemoryLedger, shape: list[tuple[str, list[tuple[str, int]]]]) -> None:
    events: list[dict[str, Any]] = []
    calls = 0
    for number, (prompt, turn_steps) in enumerate(shape, start=1):
        events += [turn("start", number), user(prompt or "go")]
        for index, (said, tools) in enumerate(turn_steps, start=1):
            events.append(step("start", number, index))
            if number == 1 and index == 1:
                events.append(header())
            ids = [f"c{calls + k}" for k in range(tools)]
            calls += tools
            blocks = [
                {"type": "tool-call", "id": i, "name": "read", "arguments": "{}"} for i in ids
            ]
            events.append(assistant(number, [*text(said), *blocks], step=index))
            for i in reversed(ids):  # results in any order, after their calls
                result = tool_result(number, i, said * 2)
                result["data"]["step"] = index
                events.append(result)
            events.append(step("end", number, index))
        events.append(turn("end", number))
    ledger.append_many(SID, events)


def surface_ok(ledger: MemoryLedger, meter: TokenMeter) -> bool:
    logged = ledger.events(SID)
    messages = event_messages(logged[node.seq] for node in meter.measure(SID).nodes)
    return check_pairs(messages).ok


@settings(max_examples=60, deadline=None)
@given(sessions, st.floats(min_value=0.05, max_value=0.9), st.integers(0, 800))
def test_compaction_keeps_every_pair_together_and_lowers_the_total(
    shape: list[tuple[str, list[tuple[str, int]]]], ratio: float, retain: int
) -> None:
    ledger = MemoryLedger()
    build(ledger, shape)
    meter = TokenMeter(ledger, Chars4Counter(), context_window=WINDOW)
    threshold = CompactionConfig(threshold_ratio=ratio).threshold_tokens(WINDOW)
    config = CompactionConfig(threshold_ratio=ratio, retain_tokens=min(retain, threshold - 1))
    engine = Compactor(ledger, meter, ExtractiveSummarizer(), FakeArchive(), config)
    assert surface_ok(ledger, meter)
    before = meter.measure(SID).total_tokens
    outcome = engine.compact_if_needed(SID)
    event(type(outcome).__name__)
    assert surface_ok(ledger, meter)
    landed = [e for e in ledger.events(SID) if e.type == "compaction/summary"]
    after = meter.measure(SID).total_tokens
    if isinstance(outcome, NotNeeded):
        assert not landed
    if landed:
        assert after < before
    if isinstance(outcome, Compacted):
        assert outcome.total_tokens_before - outcome.total_tokens_after == (
            outcome.net_removed_tokens
        )
    if isinstance(outcome, CompactionStalled):
        assert len(outcome.compactions) == len(landed)


@settings(max_examples=60, deadline=None)
@given(sessions, st.integers(0, 3), st.integers(1, 30))
def test_any_region_either_lands_pair_safe_and_smaller_or_appends_nothing(
    shape: list[tuple[str, list[tuple[str, int]]]], first: int, length: int
) -> None:
    ledger = MemoryLedger()
    build(ledger, shape)
    meter = TokenMeter(ledger, Chars4Counter(), context_window=WINDOW)
    engine = Compactor(ledger, meter, ExtractiveSummarizer(), FakeArchive())
    nodes = meter.measure(SID).nodes
    start = nodes[min(first, len(nodes) - 1)].seq
    end = nodes[min(first + length, len(nodes) - 1)].seq
    revision, before = ledger.revision(SID), meter.measure(SID).total_tokens
    try:
        result = engine.compact_region(SID, start, end)
    except (CompactionRangeError, PlanRefusedError):
        assert ledger.revision(SID) == revision
    except SummaryNotSmallerError:
        assert [e.type for e in ledger.events(SID, revision)] == [
            "compaction/start",
            "compaction/end",
        ]
    else:
        event("region landed")
        assert result.total_tokens_after < before
        assert before - result.total_tokens_after == result.net_removed_tokens
    assert surface_ok(ledger, meter)


def test_a_span_just_at_the_summary_floor_stalls_instead_of_raising() -> None:
    """Selection and the region transaction agree on the smallest useful span: one whose
    room after the framing is exactly the floor is chosen and summarized, never refused
    with CompactionRangeError by the transaction (a Hypothesis find)."""
    from ctxbudget.compaction.selection import MIN_SUMMARY_TOKENS, summary_room

    framing = 78
    assert summary_room(framing + MIN_SUMMARY_TOKENS + 1, framing) == MIN_SUMMARY_TOKENS
    assert summary_room(framing + MIN_SUMMARY_TOKENS, framing) < MIN_SUMMARY_TOKENS
