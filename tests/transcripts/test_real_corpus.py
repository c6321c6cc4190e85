"""Every real transcript with usage in ../shared imports, and the meter predicts each
call's prompt within its documented error of the recorded usage (docs/meter.md).

Reads the shared corpus at run time (nothing of it is copied here); skipped, with
a message, where the corpus is not present.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

import pytest

from ctxbudget.errors import TranscriptError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.transcripts import ImportedSession, read_transcript

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "transcripts"

# The meter's documented error on every call after a session's first usage report
# (docs/meter.md, "How accurate").
POOLED_P95 = 0.015
AGENT_P95 = 0.03  # every agent with at least AGENT_MIN_CALLS scored calls
AGENT_MIN_CALLS = 50
ANY_CALL = 0.12

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared transcript corpus is not at {CORPUS}"
)


def corpus_sessions() -> list[ImportedSession]:
    sessions = []
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        try:
            sessions += [s for s in read_transcript(path) if s.calls_with_usage]
        except TranscriptError:
            continue  # a format no importer covers (SpecStory, aider, ShareGPT, ...)
    return sessions


@pytest.fixture(scope="module")
def sessions() -> list[ImportedSession]:
    found = corpus_sessions()
    if not found:
        pytest.skip(f"no transcript with usage under {CORPUS}")
    return found


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[94]


def test_the_corpus_agents_with_usage_are_all_imported(sessions: list[ImportedSession]) -> None:
    """Claude Code (stream-json runs) and OpenHands are in ../shared with usage."""
    assert {"claude-code", "openhands"} <= {s.agent for s in sessions}
    assert sum(s.calls_with_usage for s in sessions) >= 500


def test_each_call_is_predicted_within_the_documented_error(
    sessions: list[ImportedSession],
) -> None:
    by_agent: dict[str, list[float]] = defaultdict(list)
    for session in sessions:
        ledger = MemoryLedger(clock=lambda: 0)
        ledger.append_many(session.session_id, list(session.events))
        history = TokenMeter(ledger, context_window=1_000_000).history(session.session_id)
        assert len(history) == session.calls
        reported_before = False
        for call in history:
            if reported_before and call.error is not None:
                assert call.anchored, (session.session_id, call.seq, call.usage)
                assert call.error <= ANY_CALL, (session.session_id, call.seq, call.error)
                by_agent[session.agent].append(call.error)
            reported_before = reported_before or call.usage is not None
    pooled = [e for errors in by_agent.values() for e in errors]
    assert p95(pooled) <= POOLED_P95
    for agent, errors in by_agent.items():
        if len(errors) >= AGENT_MIN_CALLS:
            assert p95(errors) <= AGENT_P95, agent
