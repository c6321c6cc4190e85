"""The anchor rule (docs/meter.md): which provider usage may anchor a measurement.

With the default counter, usage below the meter's estimate is trusted unless it is
implausibly low; with a counter you pass, the reference rule holds (lower usage is
never trusted). ``Measurement.usage_verdict`` says which applied.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.meter import (
    DEFAULT_ANCHOR_RULE,
    MIN_PLAUSIBLE_USAGE_RATIO,
    SEED_ANCHOR_RULE,
    AnchorRule,
    Baseline,
    TokenMeter,
)
from ctxbudget.meter.anchor_rule import usage_trusted
from ctxbudget.tokens import Chars4Counter

from .script import Script

PROSE = "The provider's tokenizer may well be more efficient than the meter's count. " * 60


def one_call(input_tokens: int | None) -> Script:
    """A user message and one call reporting ``input_tokens`` (None: no usage)."""
    s = Script()
    s.user(PROSE)
    usage = None if input_tokens is None else {"input_tokens": input_tokens, "output_tokens": 5}
    s.call("Understood.", usage=usage, system="You are terse.")
    s.user("and one more thing")
    return s


def default_estimate() -> int:
    """What the default meter estimates the call above at, with no usage to anchor on."""
    measured = TokenMeter(one_call(None).ledger).measure("s")
    assert measured.baseline.kind == "estimated"
    return measured.baseline.tokens


def test_default_meter_trusts_plausible_usage_below_its_estimate() -> None:
    estimate = default_estimate()
    reported = int(estimate * 0.8)
    m = TokenMeter(one_call(reported - 5).ledger).measure("s")
    assert m.baseline.kind == "usage"
    assert m.baseline.tokens == reported
    assert m.usage_verdict == "trusted-below-estimate"
    assert m.total_tokens == reported + m.surface_delta_tokens


def test_default_meter_rejects_usage_below_half_its_estimate() -> None:
    estimate = default_estimate()
    m = TokenMeter(one_call(int(estimate * 0.3)).ledger).measure("s")
    assert m.baseline == Baseline("estimated", estimate)
    assert m.usage_verdict == "implausible"


def test_usage_above_the_estimate_is_trusted_by_every_rule() -> None:
    s = one_call(50_000)
    for meter in (TokenMeter(s.ledger), TokenMeter(s.ledger, Chars4Counter())):
        m = meter.measure("s")
        assert (m.baseline.kind, m.baseline.tokens) == ("usage", 50_005)
        assert m.usage_verdict == "trusted"


def test_a_counter_you_pass_keeps_the_reference_rule() -> None:
    """Chars4 prices the call far above 100 tokens: the estimate anchors (seed vector M6)."""
    meter = TokenMeter(one_call(100).ledger, Chars4Counter())
    assert meter.anchor_rule == SEED_ANCHOR_RULE
    m = meter.measure("s")
    assert m.baseline.kind == "estimated"
    assert m.usage_verdict == "below-estimate"


def test_the_rule_can_be_chosen_either_way() -> None:
    estimate = default_estimate()
    s = one_call(int(estimate * 0.8))
    seed_rule = TokenMeter(s.ledger, anchor_rule=SEED_ANCHOR_RULE)
    assert seed_rule.measure("s").baseline.kind == "estimated"
    chosen = TokenMeter(s.ledger, Chars4Counter(), anchor_rule=DEFAULT_ANCHOR_RULE)
    assert chosen.anchor_rule.trust_lower_usage


def test_no_usage_and_a_changed_envelope_say_no_usage() -> None:
    assert TokenMeter(one_call(None).ledger).measure("s").usage_verdict == "no-usage"
    other = {"config": {"provider": "mock", "model": "another"}}
    m = TokenMeter(one_call(50_000).ledger).measure("s", other)
    assert (m.baseline.kind, m.usage_verdict) == ("estimated", "no-usage")


@given(st.integers(0, 10**7), st.integers(0, 10**7))
def test_judge_trusts_exactly_the_documented_range(usage: int, estimate: int) -> None:
    reference = AnchorRule(trust_lower_usage=False).judge(usage, estimate)
    default = AnchorRule(trust_lower_usage=True).judge(usage, estimate)
    assert usage_trusted(reference) == (usage >= estimate)
    assert usage_trusted(default) == (usage >= MIN_PLAUSIBLE_USAGE_RATIO * estimate)
    assert (default == "implausible") == (usage < MIN_PLAUSIBLE_USAGE_RATIO * estimate)


def switching_models() -> Script:
    """A call on model a, one on model b, then the session goes back to model a."""
    s = Script()
    s.user(PROSE)
    s.call("on a", usage={"input_tokens": 5_000, "output_tokens": 10}, model="a")
    s.user("now the other model")
    s.call("on b", usage={"input_tokens": 5_200, "output_tokens": 10}, step=2, model="b")
    s.user("and back")
    s.step_start(step=3)
    s.header(model="a")
    return s


def test_a_model_switch_and_back_anchors_on_the_models_own_usage() -> None:
    m = TokenMeter(switching_models().ledger).measure("s")
    assert (m.baseline.kind, m.baseline.tokens) == ("usage", 5_010)
    # the delta is everything logged since model a's call: both messages and b's answer
    assert m.surface_delta_tokens > 0
    assert m.usage_verdict == "trusted"


def test_the_seed_rule_keeps_only_the_latest_anchor() -> None:
    """Seed vector M9: after a switch the latest call anchors, or nothing does."""
    m = TokenMeter(switching_models().ledger, Chars4Counter()).measure("s")
    assert m.baseline.kind == "estimated"
    assert m.usage_verdict == "no-usage"


def test_an_override_header_finds_its_envelopes_anchor() -> None:
    s = switching_models()
    s.step_end(step=3)
    meter = TokenMeter(s.ledger)
    b = meter.measure("s", {"config": {"provider": "mock", "model": "b"}})
    assert (b.baseline.kind, b.baseline.tokens) == ("usage", 5_210)


def test_an_efficient_tokenizer_keeps_the_default_meter_on_its_usage() -> None:
    """Issue 8's GLM case: the provider counts this Chinese session 25 % below the
    meter's price. The default meter follows the provider's count call after call (only
    each new message is priced, and the session soon calibrates that too); the seed's
    rule ignores every report and stays high by the whole difference."""
    message = "我们先读一下失败的测试，然后修复解析器里的边界条件。" * 40
    s = Script()
    reported = round(0.75 * TokenMeter(s.ledger).estimate_message(text_message(message)))
    prompt = 0
    for step in range(1, 13):
        s.user(message)
        prompt += reported
        usage = {"input_tokens": prompt, "output_tokens": 8}
        s.call("好的。", usage=usage, step=step, **({"model": "glm"} if step == 1 else {}))
        prompt += 8

    def last_errors(meter: TokenMeter) -> list[float]:
        return [c.error or 0.0 for c in meter.history("s")[-3:]]

    assert max(last_errors(TokenMeter(s.ledger))) < 0.03
    assert min(last_errors(TokenMeter(s.ledger, anchor_rule=SEED_ANCHOR_RULE))) > 0.25


def text_message(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}
