"""Usage calibration: the delta on top of a usage anchor, scaled by the session's own growth."""

from __future__ import annotations

from ctxbudget.meter import TokenMeter
from ctxbudget.meter.fold import MAX_DELTA_SCALE, MIN_CALIBRATION_TOKENS, UsageGrowth
from ctxbudget.tokens import Chars4Counter

from .script import Script


def two_anchored_calls(
    second_input: int, growth: str = "x" * 20_000, **second_header: str
) -> Script:
    """Two calls with usage; between them the surface grows by ``growth`` (5,008 tokens
    for the chars4 counter)."""
    s = Script()
    s.user("hi")  # 9 tokens
    s.call("first", usage={"input_tokens": 100, "output_tokens": 10}, system="sys")  # 110
    s.user(growth)
    s.call(
        "second",
        step=2,
        usage={"input_tokens": second_input, "output_tokens": 10},
        **second_header,
    )
    s.user("y" * 400)  # 108 tokens after the last anchor
    return s


def test_delta_is_scaled_by_how_the_prompt_really_grew() -> None:
    s = two_anchored_calls(second_input=110 + 7_512)  # grew 7,512 for 5,008 priced: x1.5
    calibrated = TokenMeter(s.ledger, Chars4Counter(), calibrate=True).measure("s")
    assert calibrated.baseline.kind == "usage"
    assert calibrated.baseline.tokens == 7_632
    assert calibrated.delta_scale == 1.5
    assert calibrated.surface_delta_tokens == 162
    assert calibrated.total_tokens == 7_632 + 162


def test_a_counter_you_choose_prices_exactly_as_it_counts() -> None:
    s = two_anchored_calls(second_input=110 + 7_512)
    plain = TokenMeter(s.ledger, Chars4Counter()).measure("s")
    assert plain.delta_scale == 1.0
    assert plain.surface_delta_tokens == 108
    assert plain.total_tokens == 7_632 + 108


def test_the_default_counter_calibrates() -> None:
    prose = "The meter learns how this session's prompts really grow. " * 800
    s = two_anchored_calls(second_input=110 + 30_000, growth=prose)
    assert TokenMeter(s.ledger).measure("s").delta_scale > 1.0


def test_scale_is_clamped() -> None:
    s = two_anchored_calls(second_input=110 + 100_000)
    assert TokenMeter(s.ledger, Chars4Counter(), calibrate=True).measure("s").delta_scale == (
        MAX_DELTA_SCALE
    )


def test_a_changed_envelope_teaches_nothing() -> None:
    s = two_anchored_calls(second_input=110 + 7_512, system="another system prompt")
    measured = TokenMeter(s.ledger, Chars4Counter(), calibrate=True).measure("s")
    assert measured.baseline.kind == "usage"
    assert measured.delta_scale == 1.0


def test_too_little_evidence_keeps_the_counter_as_is() -> None:
    growth = UsageGrowth().observed(actual=3 * (MIN_CALIBRATION_TOKENS - 1), priced=1)
    assert growth.scale() == 1.0
    assert (
        UsageGrowth(actual=MIN_CALIBRATION_TOKENS * 3 // 2, priced=MIN_CALIBRATION_TOKENS).scale()
        == 1.5
    )
