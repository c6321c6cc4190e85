"""The reference backend's compaction vectors (seed 002's backend, docs/seeds.md; the
differences in docs/compaction.md, "Where this differs from the reference"), as our own
tests with a fake summarizer. Prices use ``Chars4Counter`` (the reference meter's); our
checkpoint framing is shorter, so totals after a compaction are ours, not the reference's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from ctxbudget.archives import event_messages
from ctxbudget.compaction import (
    Compacted,
    CompactionConfig,
    CompactionConflictError,
    CompactionRangeError,
    CompactionStalled,
    Compactor,
    NotNeeded,
    SummaryNotSmallerError,
)
from ctxbudget.content import TextBlock
from ctxbudget.errors import ArchiveFailedError, ConfigError, SummarizeFailedError, TooFewItemsError
from ctxbudget.ledger import AppendableEvent, Event, Ledger, MemoryLedger
from ctxbudget.ledger.base import LedgerShell
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import CHECKPOINT_CLOSE, CHECKPOINT_OPEN, SummaryRequest
from ctxbudget.testing import FakeArchive, FakeSummarizer
from ctxbudget.tokens import Chars4Counter
from tests.compaction.sessions import (
    assistant,
    conversation,
    header,
    step,
    text,
    tool_conversation,
    tool_result,
    turn,
    user,
)

SID = "s"


def compactor(
    ledger: Ledger,
    window: int = 1000,
    summary: str = "small checkpoint",
    summarizer: FakeSummarizer | None = None,
    **settings: Any,
) -> tuple[Compactor, TokenMeter, FakeSummarizer, FakeArchive]:
    meter = TokenMeter(ledger, Chars4Counter(), context_window=window)
    fake = summarizer if summarizer is not None else FakeSummarizer(summary)
    archive = FakeArchive()
    config = CompactionConfig(**settings)
    return Compactor(ledger, meter, fake, archive, config), meter, fake, archive


def seqs(meter: TokenMeter) -> list[int]:
    return [node.seq for node in meter.measure(SID).nodes]


def types_after(ledger: Ledger, revision: int) -> list[str]:
    return [event.type for event in ledger.events(SID, revision)]


PRESSURE = {"threshold_ratio": 0.5, "retain_tokens": 180}


def test_an_empty_surface_is_not_compacted_and_the_summarizer_is_not_called() -> None:
    ledger = MemoryLedger()
    ledger.append(SID, turn("start", 1))
    engine, _, fake, _ = compactor(ledger, **PRESSURE)
    assert engine.compact_if_needed(SID) == NotNeeded(0, 500)
    assert fake.calls == []


def test_below_threshold_nothing_happens_above_it_the_head_span_is_replaced() -> None:
    small = MemoryLedger()
    conversation(small, SID, 2)
    engine, _, _, _ = compactor(small, **PRESSURE)
    assert engine.compact_if_needed(SID) == NotNeeded(362, 500)

    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, fake, archive = compactor(ledger, **PRESSURE)
    assert seqs(meter) == [1, 4, 8, 10, 14, 16, 20, 22]
    result = engine.compact_if_needed(SID)
    assert isinstance(result, Compacted)
    assert (result.start_seq, result.end_seq) == (1, 16)
    assert result.shadowed_seqs == (1, 4, 8, 10, 14, 16)
    assert result.shadowed_tokens == 543
    assert (result.lock_seq, result.summary_seq, result.message_seq) == (26, 27, 28)
    assert types_after(ledger, 26) == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    assert seqs(meter) == [28, 20, 22]
    after = meter.measure(SID).total_tokens
    assert after == result.summary_tokens + 90 + 91 == result.total_tokens_after
    assert 724 - after == result.net_removed_tokens  # the meter dropped by the net figure
    assert len(fake.calls) == 1
    assert fake.calls[0].max_tokens < 543  # asked for a summary smaller than the span
    original = archive.retrieve(result.locator)
    assert original.messages == event_messages(ledger.events(SID)[s] for s in result.shadowed_seqs)


def test_a_single_indivisible_tool_pair_is_not_compacted_even_on_overflow() -> None:
    ledger = MemoryLedger()
    call = {"type": "tool-call", "id": "c1", "name": "bash", "arguments": "{}"}
    ledger.append_many(
        SID,
        [
            turn("start", 1),
            step("start", 1),
            header(),
            assistant(1, [call]),
            tool_result(1, "c1", "X" * 3000),
            step("end", 1),
        ],
    )
    engine, _, fake, _ = compactor(ledger, **PRESSURE)
    before = ledger.revision(SID)
    outcome = engine.compact_if_needed(SID, "overflow")
    assert isinstance(outcome, CompactionStalled)
    assert outcome.reason == "nothing_to_compact"
    assert ledger.revision(SID) == before  # no compaction/start
    assert fake.calls == []


def test_a_huge_envelope_with_no_compactable_span_stalls_with_a_reason() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 1)
    ledger.append(SID, header(system="x" * 100_000))
    engine, meter, fake, _ = compactor(ledger, **PRESSURE)
    assert meter.measure(SID).total_tokens == 25_185
    outcome = engine.compact_if_needed(SID)
    assert isinstance(outcome, CompactionStalled)
    assert outcome.reason == "nothing_to_compact"
    assert "below the 8 a compaction needs" in outcome.detail
    assert fake.calls == []


def test_retries_are_bounded_and_end_in_a_typed_stall() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, _, fake, _ = compactor(
        ledger, summary="x" * 200, threshold_ratio=0.3, retain_tokens=180, compaction_retries=0
    )
    outcome = engine.compact_if_needed(SID)
    assert isinstance(outcome, CompactionStalled)
    assert outcome.reason == "still_above_threshold"
    assert len(outcome.compactions) == 1
    assert outcome.total_tokens >= outcome.threshold_tokens == 300
    assert len(fake.calls) == 1


def test_the_cut_is_pulled_toward_the_head_so_no_tool_pair_is_split() -> None:
    ledger = MemoryLedger()
    tool_conversation(ledger, SID)
    engine, meter, _, _ = compactor(ledger, window=4000, threshold_ratio=0.8, retain_tokens=80)
    result = engine.compact_if_needed(SID)
    assert isinstance(result, Compacted)
    assert (result.start_seq, result.end_seq) == (1, 18)  # not 20: 20's call is answered by 22
    assert result.shadowed_tokens == 5176
    assert seqs(meter) == [28, 20, 22]


def test_a_region_checkpoint_is_framed_carries_its_locator_and_replays() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, fake, _ = compactor(ledger, **PRESSURE)
    nodes = seqs(meter)
    result = engine.compact_region(SID, nodes[0], nodes[3])
    assert result.shadowed_seqs == tuple(nodes[:4])
    assert result.shadowed_tokens == 362
    assert "fixture user 1" in fake.calls[0].messages[0].content[0].text  # type: ignore[union-attr]
    summary = ledger.events(SID)[result.summary_seq]
    assert summary.data["shadowed_seqs"] == tuple(nodes[:4])
    assert summary.data["shadowed_tokens"] == 362
    assert summary.data["locator"] == result.locator
    message = ledger.events(SID)[result.message_seq]
    blocks = message.data["content"]
    assert CHECKPOINT_OPEN in blocks[0]["text"]
    assert blocks[-1]["text"].startswith(CHECKPOINT_CLOSE)
    assert result.locator in blocks[-1]["text"]  # an agent can ask for the originals again
    assert message.source_seqs == (result.lock_seq, result.summary_seq, *nodes[:4])
    assert message.data["source"] == {"kind": "compaction", "compaction_id": result.compaction_id}
    replayed = TokenMeter(ledger, Chars4Counter(), context_window=1000).measure(SID)
    assert replayed == meter.measure(SID)


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        (lambda n: (9001, n[7]), "start seq 9001 is not on the current surface"),
        (lambda n: (n[0], 9002), "end seq 9002 is not on the current surface"),
        (lambda n: (n[2], n[1]), "comes after"),
    ],
)
def test_a_bad_region_is_refused_and_nothing_is_appended(
    edges: Callable[[list[int]], tuple[int, int]], message: str
) -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, _, _ = compactor(ledger, **PRESSURE)
    before = ledger.revision(SID)
    with pytest.raises(CompactionRangeError, match=message):
        engine.compact_region(SID, *edges(seqs(meter)))
    assert ledger.revision(SID) == before


def test_a_region_edge_that_would_split_a_tool_pair_is_refused() -> None:
    ledger = MemoryLedger()
    tool_conversation(ledger, SID)
    engine, meter, _, _ = compactor(ledger, window=4000, threshold_ratio=0.8, retain_tokens=80)
    n = seqs(meter)
    with pytest.raises(CompactionRangeError, match=f"start seq {n[2]} is not a safe boundary"):
        engine.compact_region(SID, n[2], n[4])
    with pytest.raises(CompactionRangeError, match=f"end seq {n[1]} is not a safe boundary"):
        engine.compact_region(SID, n[0], n[1])


def test_the_plan_guards_apply_to_a_region() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 3)  # six surface nodes
    engine, meter, _, _ = compactor(ledger, **PRESSURE)
    n = seqs(meter)
    with pytest.raises(TooFewItemsError):
        engine.compact_region(SID, n[0], n[3])


def test_a_lock_left_by_a_dead_process_does_not_block_compaction() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    dead_lock = {"compaction_id": "dead", "trigger": "pressure", "start_seq": 1, "end_seq": 4}
    revision = len(ledger.events(SID))
    ledger.append(SID, {"type": "compaction/start", "data": {**dead_lock, "revision": revision}})
    engine, _, _, _ = compactor(ledger, **PRESSURE)
    assert isinstance(engine.compact_if_needed(SID), Compacted)


class InterferingLedger(LedgerShell):
    """A memory ledger where another writer acts right after each compaction/start."""

    def __init__(self, act: Callable[[MemoryLedger], None]) -> None:
        self.inner, self.act = MemoryLedger(), act

    def append_many(
        self,
        session_id: str,
        events: Iterable[AppendableEvent],
        expected_revision: int | None = None,
    ) -> list[int]:
        batch = list(events)
        seqs = self.inner.append_many(session_id, batch, expected_revision)
        if batch and batch[0]["type"] == "compaction/start":
            self.act(self.inner)
        return seqs

    def events(self, session_id: str, start: int = 0, stop: int | None = None) -> Sequence[Event]:
        return self.inner.events(session_id, start, stop)

    def revision(self, session_id: str) -> int:
        return self.inner.revision(session_id)

    def sessions(self) -> list[str]:
        return self.inner.sessions()

    def close(self) -> None:
        self.inner.close()


def replace_first_node(ledger: MemoryLedger) -> None:
    first = TokenMeter(ledger, Chars4Counter()).measure(SID).nodes[0].seq
    ledger.append(
        SID,
        {
            **user("someone else's edit"),
            "surface_op": {"op": "replace", "start": first, "end": first},
            "source_seqs": [first],
        },
    )


def test_a_span_changed_right_after_the_lock_ends_the_compaction_with_a_conflict() -> None:
    ledger = InterferingLedger(replace_first_node)
    conversation(ledger.inner, SID, 4)
    engine, _, fake, _ = compactor(ledger, **PRESSURE)
    with pytest.raises(CompactionConflictError, match="changed before summarizing"):
        engine.compact_if_needed(SID)
    assert fake.calls == []
    assert types_after(ledger, 26) == ["compaction/start", "user/message", "compaction/end"]
    assert ledger.events(SID)[-1].data["error"].startswith("compaction_conflict: ")


def test_a_summarizer_failure_is_logged_and_changes_nothing_else() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, _, archive = compactor(
        ledger, summarizer=FakeSummarizer(fail_with=RuntimeError("summary unavailable")), **PRESSURE
    )
    before = seqs(meter)
    with pytest.raises(SummarizeFailedError, match="summary unavailable") as caught:
        engine.compact_if_needed(SID)
    assert seqs(meter) == before
    assert types_after(ledger, 26) == ["compaction/start", "compaction/end"]
    error = ledger.events(SID)[-1].data["error"]
    assert error.startswith("summarize_failed: ")
    assert "summary unavailable" in error
    assert archive.retrieve(caught.value.locator).seqs == (1, 4, 8, 10, 14, 16)  # archived first


def during(action: Callable[[SummaryRequest], None]) -> FakeSummarizer:
    return FakeSummarizer("small checkpoint", during=action)


def test_appends_outside_the_span_during_the_summary_do_not_block_the_commit() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)

    def elsewhere(_: SummaryRequest) -> None:
        ledger.append(SID, header(model="other"))  # log only
        ledger.append(SID, {**user("a new message"), "type": "context/message"})  # surface tail

    engine, meter, _, _ = compactor(ledger, summarizer=during(elsewhere), **PRESSURE)
    result = engine.compact_if_needed(SID)
    assert isinstance(result, Compacted)
    assert result.summary_seq == 29  # after the two events appended meanwhile
    assert seqs(meter) == [result.message_seq, 20, 22, 28]


def test_a_span_replaced_during_the_summary_is_a_conflict_and_nothing_lands() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, _, _, _ = compactor(
        ledger, summarizer=during(lambda _: replace_first_node(ledger)), **PRESSURE
    )
    with pytest.raises(CompactionConflictError, match="left the surface"):
        engine.compact_if_needed(SID)
    assert "compaction/summary" not in types_after(ledger, 0)
    assert ledger.events(SID)[-1].type == "compaction/end"


def test_a_summary_that_is_not_smaller_is_rejected_and_logged() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    verbose = "\n".join(f"verbose {i}" for i in range(200))
    engine, meter, _, _ = compactor(ledger, summary=verbose, **PRESSURE)
    n = seqs(meter)
    with pytest.raises(SummaryNotSmallerError, match="not smaller"):
        engine.compact_region(SID, n[0], n[2 + 1])
    assert "compaction/summary" not in types_after(ledger, 0)
    assert ledger.events(SID)[-1].data["error"].startswith("summary_not_smaller: ")
    assert seqs(meter) == n


def test_spans_that_cannot_shrink_are_never_chosen_again_and_the_loop_ends() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 6)
    verbose = "\n".join(f"verbose {i}" for i in range(400))
    engine, _, fake, _ = compactor(ledger, summary=verbose, **PRESSURE)
    outcome = engine.compact_if_needed(SID)
    assert isinstance(outcome, CompactionStalled)
    assert outcome.reason == "summary_not_smaller"
    tried = [tuple(n for n in call.messages) for call in fake.calls]
    assert len(tried) == len(set(tried)) <= 3  # each span once, bounded
    again = engine.compact_if_needed(SID)
    assert isinstance(again, CompactionStalled)
    assert again.reason == "summary_not_smaller"
    assert len(fake.calls) == len(tried)  # the log remembers: no span is re-summarized


def test_a_lone_checkpoint_is_never_re_compacted() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, fake, _ = compactor(ledger, threshold_ratio=0.2, retain_tokens=180)
    first = engine.compact_if_needed(SID)
    assert isinstance(first, CompactionStalled)  # one landed, still above 200 tokens
    assert first.reason == "still_above_threshold"
    calls = len(fake.calls)
    again = engine.compact_if_needed(SID)
    assert isinstance(again, CompactionStalled)
    assert again.reason == "nothing_to_compact"  # the plan guards, not a loop
    assert len(fake.calls) == calls
    assert len(meter.measure(SID).nodes) < 8


def test_overflow_keeps_only_the_newest_safe_tail_in_one_attempt() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, fake, _ = compactor(ledger, window=10_000, threshold_ratio=1, retain_tokens=900)
    result = engine.compact_if_needed(SID, "overflow")
    assert isinstance(result, Compacted)
    assert result.shadowed_seqs == (1, 4, 8, 10, 14, 16, 20)
    assert seqs(meter) == [result.message_seq, 22]
    assert len(fake.calls) == 1


def test_a_committed_compaction_gives_the_meter_a_lower_total_with_a_usage_anchor() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    usage = {"input_tokens": 900, "output_tokens": 40}
    ledger.append_many(
        SID,
        [
            step("start", 5),
            {
                **assistant(5, text("done")),
                "data": {**assistant(5, text("done"))["data"], "usage": usage},
            },
            step("end", 5),
        ],
    )
    engine, meter, _, _ = compactor(ledger, **PRESSURE)
    before = meter.measure(SID)
    assert before.baseline.kind == "usage"
    result = engine.compact_if_needed(SID)
    assert isinstance(result, Compacted)
    after = meter.measure(SID)
    assert after.baseline.kind == "usage"
    assert before.total_tokens - after.total_tokens == result.net_removed_tokens > 0


def test_a_bad_trigger_is_refused() -> None:
    ledger = MemoryLedger()
    engine, _, _, _ = compactor(ledger)
    with pytest.raises(ConfigError, match="trigger must be"):
        engine.compact_if_needed(SID, "sometimes")


def test_select_range_answers_without_writing() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, _, fake, _ = compactor(ledger, **PRESSURE)
    found = engine.select_range(SID)
    assert found is not None
    assert (found.start_seq, found.end_seq, found.tokens, found.revision) == (1, 16, 543, 26)
    assert engine.select_range(SID, retain_tokens=10_000) is None
    assert ledger.revision(SID) == 26
    assert fake.calls == []
    assert TextBlock  # the content model the checkpoint is made of


def test_something_that_is_neither_an_archive_nor_a_factory_is_refused_clearly() -> None:
    ledger = MemoryLedger()
    meter = TokenMeter(ledger, Chars4Counter(), context_window=1000)
    with pytest.raises(ConfigError, match="not an Archive"):
        Compactor(ledger, meter, FakeSummarizer(), object(), CompactionConfig())  # type: ignore[arg-type]


def test_an_archive_failure_stops_before_the_summary_and_is_logged() -> None:
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    engine, meter, fake, archive = compactor(ledger, **PRESSURE)
    archive.fail_with = OSError("disk full")
    before = seqs(meter)
    with pytest.raises(ArchiveFailedError, match="disk full"):
        engine.compact_if_needed(SID)
    assert fake.calls == []  # seed 000 order: nothing is summarized before it is archived
    assert seqs(meter) == before
    assert ledger.events(SID)[-1].data["error"].startswith("archive_failed: ")
