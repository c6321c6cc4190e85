"""Usage calibration: the delta on top of a usage anchor, scaled by the session's own growth."""

from __future__ import annotations

from ctxbudget.meter import TokenMeter
from ctxbudget.meter.fold import (
    CALIBRATION_PRIOR_TOKENS,
    MAX_DELTA_SCALE,
    MIN_CALIBRATION_TOKENS,
    UsageGrowth,
)
from ctxbudget.tokens import Chars4Counter

from .script import Script


def two_anchored_calls(
    second_input: int, growth: str = "x" * 20_000, **second_header: str
) -> Script:
    """Two calls with usage; between them the surface grows by ``growth`` (5,008 tokens
    for the chars4 counter). The answers report 1 output token for text priced at 6,
    a ratio outside the scale's bounds, so only the growth calibrates."""
    s = Script()
    s.user("hi")  # 9 tokens
    s.call("first", usage={"input_tokens": 100, "output_tokens": 1}, system="sys")  # 101
    s.user(growth)
    s.call(
        "second",
        step=2,
        usage={"input_tokens": second_input, "output_tokens": 1},
        **second_header,
    )
    s.user("y" * 400)  # 108 tokens after the last anchor
    return s


def test_delta_is_scaled_by_how_the_prompt_really_grew() -> None:
    s = two_anchored_calls(second_input=101 + 7_512)  # grew 7,512 for 5,008 priced: x1.5
    calibrated = TokenMeter(s.ledger, Chars4Counter(), calibrate=True).measure("s")
    assert calibrated.baseline.kind == "usage"
    assert calibrated.baseline.tokens == 7_614
    assert calibrated.delta_scale == 1.5
    assert calibrated.surface_delta_tokens == 162
    assert calibrated.total_tokens == 7_614 + 162


def test_a_counter_you_choose_prices_exactly_as_it_counts() -> None:
    s = two_anchored_calls(second_input=101 + 7_512)
    plain = TokenMeter(s.ledger, Chars4Counter()).measure("s")
    assert plain.delta_scale == 1.0
    assert plain.surface_delta_tokens == 108
    assert plain.total_tokens == 7_614 + 108


def test_the_default_counter_calibrates() -> None:
    prose = "The meter learns how this session's prompts really grow. " * 800
    s = two_anchored_calls(second_input=101 + 30_000, growth=prose)
    assert TokenMeter(s.ledger).measure("s").delta_scale > 1.0


def test_scale_is_clamped() -> None:
    s = two_anchored_calls(second_input=101 + 100_000)
    assert TokenMeter(s.ledger, Chars4Counter(), calibrate=True).measure("s").delta_scale == (
        MAX_DELTA_SCALE
    )


def test_a_changed_envelope_teaches_nothing() -> None:
    s = two_anchored_calls(second_input=101 + 7_512, system="another system prompt")
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


def chat(output_ratio: float, answer: list[dict[str, object]] | None = None) -> Script:
    """A chat whose plain-text answers report ``output_ratio`` times their chars4 price
    (40 chars: 10 tokens, plus 8 of block and message overhead), then a new user
    message to price."""
    s = Script()
    s.user("question")
    content = answer or [{"type": "text", "text": "a" * 40}]
    for step in (1, 2, 3):
        usage = {"input_tokens": 1_000 * step, "output_tokens": round(18 * output_ratio)}
        header = {"model": "m"} if step == 1 else {}
        s.step_start(step=step)
        if header:
            s.header(**header)
        s.assistant(content, step=step, usage=usage)
        s.step_end(step=step)
        s.user("next question")
    return s


def test_plain_text_answers_calibrate_from_the_first_one() -> None:
    """Three answers counted 1.5x their price: 81 reported for 54 priced against the
    prior of 300 tokens at 1, so the scale moves part of the way at once."""
    m = TokenMeter(chat(1.5).ledger, Chars4Counter(), calibrate=True).measure("s")
    expected = (3 * 27 + CALIBRATION_PRIOR_TOKENS) / (3 * 18 + CALIBRATION_PRIOR_TOKENS)
    assert m.delta_scale == expected
    assert 1.0 < m.delta_scale < 1.5


def test_answers_with_tool_calls_or_implausible_counts_teach_nothing() -> None:
    call = {"type": "tool-call", "id": "c", "name": "read", "arguments": "{}"}
    with_call = chat(1.5, [{"type": "text", "text": "a" * 40}, call])
    assert (
        TokenMeter(with_call.ledger, Chars4Counter(), calibrate=True).measure("s").delta_scale == 1
    )
    hidden_reasoning = chat(5.0)  # 90 tokens reported for 18 priced: not this text alone
    meter = TokenMeter(hidden_reasoning.ledger, Chars4Counter(), calibrate=True)
    assert meter.measure("s").delta_scale == 1
