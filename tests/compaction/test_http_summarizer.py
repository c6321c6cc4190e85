"""Compaction with the HTTP summarizer against a real server on 127.0.0.1: each failure
appends compaction/end with the error and changes nothing else."""

from __future__ import annotations

import pytest

from ctxbudget.compaction import Compacted, CompactionConfig, Compactor
from ctxbudget.errors import SummarizeFailedError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.summaries import OpenAICompatibleSummarizer
from ctxbudget.testing import FakeArchive
from ctxbudget.tokens import Chars4Counter
from tests.chat_server import Answer, ChatServer
from tests.compaction.sessions import conversation

SID = "s"


def engine(server: ChatServer, ledger: MemoryLedger, timeout: float = 5.0) -> Compactor:
    meter = TokenMeter(ledger, Chars4Counter(), context_window=1000)
    summarizer = OpenAICompatibleSummarizer(server.base_url, "summary-model", timeout=timeout)
    config = CompactionConfig(threshold_ratio=0.5, retain_tokens=180)
    return Compactor(ledger, meter, summarizer, FakeArchive(), config)


def test_a_good_answer_lands_and_records_the_summarizer(server: ChatServer) -> None:
    server.default = Answer(content="## Task\n- fixture talk")
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    result = engine(server, ledger).compact_if_needed(SID)
    assert isinstance(result, Compacted)
    summary = ledger.events(SID)[result.summary_seq].data
    assert (summary["model"], summary["provider"]) == ("summary-model", server.base_url)
    assert summary["summary"] == "## Task\n- fixture talk"
    assert server.requests[0]["max_tokens"] == summary["max_tokens"] < result.shadowed_tokens


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (Answer(status=500), "http_status"),
        (Answer(delay_s=1.5), "timeout"),
        (Answer(finish_reason="length"), "truncated"),
        (Answer(content=""), "empty"),
    ],
)
def test_each_failure_appends_compaction_end_with_the_error_and_nothing_else(
    server: ChatServer, answer: Answer, reason: str
) -> None:
    server.default = answer
    ledger = MemoryLedger()
    conversation(ledger, SID, 4)
    before = ledger.events(SID)
    with pytest.raises(SummarizeFailedError, match=reason):
        # A short timeout only where the answer is slow: a busy machine must not turn
        # the other failures into timeouts.
        engine(server, ledger, timeout=0.5 if answer.delay_s else 5.0).compact_if_needed(SID)
    after = ledger.events(SID)
    assert after[: len(before)] == before
    start, end = after[len(before) :]
    assert (start.type, end.type) == ("compaction/start", "compaction/end")
    assert end.data["compaction_id"] == start.data["compaction_id"]
    assert end.data["error"].startswith("summarize_failed: ")
    assert f"summarizer failed ({reason})" in end.data["error"]
    meter = TokenMeter(ledger, Chars4Counter(), context_window=1000)
    assert [n.seq for n in meter.measure(SID).nodes] == [1, 4, 8, 10, 14, 16, 20, 22]
