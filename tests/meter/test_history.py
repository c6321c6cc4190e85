"""TokenMeter.history: each call's prediction is the measurement when its request went
out, beside the usage it reported; replaying leaves the meter's own folds alone."""

from __future__ import annotations

import pytest

from ctxbudget.errors import ReplayError
from ctxbudget.ledger import MemoryLedger
from ctxbudget.meter import TokenMeter
from ctxbudget.tokens import Chars4Counter

from .script import RawLog, Script


def three_calls() -> Script:
    s = Script()
    s.user("please look at the failing test")
    for step, input_tokens in enumerate((900, 1500, 2600), start=1):
        usage = {"input_tokens": input_tokens, "output_tokens": 20}
        header = {"model": "m"} if step == 1 else {}
        s.call(f"answer {step}", usage=usage, step=step, **header)
        s.user("tool output " * 40 * step)
    return s


def test_each_prediction_is_the_measurement_before_the_call() -> None:
    s = three_calls()
    history = TokenMeter(s.ledger).history("s")
    assert [c.reported_tokens for c in history] == [900, 1500, 2600]
    replay = MemoryLedger()
    events = s.ledger.events("s")
    for call in history:
        step = events[call.seq].data["step"]
        sent = next(e.seq for e in events if e.type == "assistant/chunk" and e.data["step"] == step)
        replay_events = [e.to_new() for e in events[len(replay.events("s")) : sent]]
        if replay_events:
            replay.append_many("s", replay_events)
        assert call.measurement == TokenMeter(replay).measure("s")


def test_first_call_is_estimated_later_ones_anchored() -> None:
    history = TokenMeter(three_calls().ledger).history("s")
    assert [c.anchored for c in history] == [False, True, True]
    second = history[1]
    assert second.measurement.baseline.tokens == 920  # the first call's prompt and output
    assert second.error == abs(second.predicted_tokens - 1500) / 1500


def test_history_follows_the_meters_counter_and_rules() -> None:
    s = three_calls()
    seeded = TokenMeter(s.ledger, Chars4Counter()).history("s")
    default = TokenMeter(s.ledger).history("s")
    assert [c.predicted_tokens for c in seeded] != [c.predicted_tokens for c in default]


def test_history_does_not_touch_the_meters_folds() -> None:
    s = three_calls()
    meter = TokenMeter(s.ledger)
    meter.history("s")
    assert meter.cached_sessions == 0


def test_a_call_without_usage_has_no_error() -> None:
    s = Script()
    s.call("hello")
    (call,) = TokenMeter(s.ledger).history("s")
    assert (call.usage, call.reported_tokens, call.error) == (None, None, None)


def test_a_log_the_meter_cannot_fold_raises_as_measure_does() -> None:
    log = RawLog()
    log.push("assistant/message", {"turn": 1, "step": 1, "content": []}, "append")
    with pytest.raises(ReplayError):
        TokenMeter(log).history("s")
