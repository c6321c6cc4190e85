"""Properties of the fold over random valid logs (Hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import Measurement, TokenMeter
from ctxbudget.tokens import SEED_OVERHEADS, Chars4Counter
from tests.meter.script import Script

TEXT = st.text(alphabet=st.sampled_from("ab c你😀{}"), max_size=40)
USAGE = st.none() | st.builds(
    lambda i, o, r: {"input_tokens": i, "output_tokens": o, "cache_read_tokens": r},
    st.integers(0, 400),
    st.integers(0, 50),
    st.integers(0, 400),
)


class Session:
    """A script plus what the surface looks like, to draw valid replaces."""

    def __init__(self) -> None:
        self.script = Script(MemoryLedger(clock=lambda: 0))
        self.surface: list[int] = []
        self.tool_results: set[int] = set()
        self.turn = 0

    def act(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(["user", "call", "header", "tool", "replace", "prune"]))
        getattr(self, action)(data)

    def user(self, data: st.DataObject) -> None:
        self.surface.append(self.script.user(data.draw(TEXT)))

    def call(self, data: st.DataObject) -> None:
        self.turn += 1
        provider = data.draw(st.none() | TEXT)
        durable = data.draw(st.none() | TEXT)
        provenance = data.draw(st.sampled_from(["exact", "empty", "legacy"]))
        usage = data.draw(USAGE)
        seq = self.script.call(
            provider, durable, usage=usage, provenance=provenance, turn=self.turn
        )
        self.surface.append(seq)

    def header(self, data: st.DataObject) -> None:
        model = data.draw(st.sampled_from(["a", "b"]))
        self.script.header(model=model, system=data.draw(st.none() | TEXT))

    def tool(self, data: st.DataObject) -> None:
        seq = self.script.add(
            "tool/result",
            {"call_id": "c", "content": [{"type": "text", "text": data.draw(TEXT)}]},
            "append",
        )
        self.surface.append(seq)
        self.tool_results.add(seq)

    def replace(self, data: st.DataObject) -> None:
        if not self.surface:
            return self.user(data)
        first = data.draw(st.integers(0, len(self.surface) - 1))
        last = data.draw(st.integers(first, len(self.surface) - 1))
        span = self.surface[first : last + 1]
        seq = self.script.user(data.draw(TEXT), replace=(span[0], span[-1], span))
        self.surface[first : last + 1] = [seq]
        return None

    def prune(self, data: st.DataObject) -> None:
        live = sorted(self.tool_results & set(self.surface))
        if not live:
            return self.tool(data)
        target = data.draw(st.sampled_from(live))
        seq = self.script.add(
            "tool/result",
            {"call_id": "c", "content": [{"type": "text", "text": data.draw(TEXT)}]},
            {"op": "replace", "start": target, "end": target},
            [target],
        )
        self.surface[self.surface.index(target)] = seq
        self.tool_results.add(seq)
        return None


def seed_meter(session: Session, calibrate: bool = False) -> TokenMeter:
    return TokenMeter(
        session.script.ledger, Chars4Counter(), 10_000, SEED_OVERHEADS, calibrate=calibrate
    )


def frozen_copy(m: Measurement) -> tuple[Any, ...]:
    return (
        m.log_revision,
        m.baseline,
        m.surface_delta_tokens,
        m.total_tokens,
        tuple(m.nodes),
        m.delta_scale,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_incremental_fold_equals_replay_from_scratch(data: st.DataObject) -> None:
    """Measuring after every append ends where one replay of the whole log ends;
    every snapshot keeps its values; nodes always sum to surface_tokens."""
    session = Session()
    calibrate = data.draw(st.booleans())
    incremental = seed_meter(session, calibrate)
    history = []
    for _ in range(data.draw(st.integers(1, 25))):
        session.act(data)
        m = incremental.measure("s")
        assert m.surface_tokens == sum(n.tokens for n in m.nodes)
        assert [n.seq for n in m.nodes] == session.surface
        assert m.total_tokens >= 0
        history.append((m, frozen_copy(m)))
    assert incremental.measure("s") == seed_meter(session, calibrate).measure("s")
    assert all(frozen_copy(m) == copy for m, copy in history)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_measuring_never_changes_the_log(data: st.DataObject) -> None:
    """The meter only reads: the log is the same before and after measuring."""
    session = Session()
    for _ in range(data.draw(st.integers(1, 15))):
        session.act(data)
    ledger = session.script.ledger
    before = [e.to_json() for e in ledger.events("s")]
    meter = seed_meter(session)
    meter.measure("s")
    meter.measure("s", {"config": {"provider": "x", "model": "y"}, "system": "override"})
    assert [e.to_json() for e in ledger.events("s")] == before
    assert ledger.sessions() == ["s"]
