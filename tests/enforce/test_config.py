"""load_budget_config: opt-in budget, opt-out cache guard, nothing silent."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ctxbudget.enforce import BudgetConfig, enforce_budget, load_budget_config
from ctxbudget.errors import ConfigError
from ctxbudget.testing import RecordingSink
from ctxbudget.tokens import CJKCounter


def load(tmp_path: Path, text: str | None) -> tuple[BudgetConfig, list[str]]:
    path = tmp_path / "agent.toml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    sink = RecordingSink()
    config = load_budget_config(path, sink=sink)
    assert all(e.name == "config_invalid" for e in sink.events)
    assert all(e.fields["path"] == str(path) for e in sink.events)
    return config, [str(e.fields["problem"]) for e in sink.events]


def test_reads_the_budget_section(tmp_path: Path) -> None:
    config, problems = load(
        tmp_path,
        "[budget]\nmax_input_tokens = 180000\ncache_guard_min_eff = 0.4\n"
        "cache_guard_max_overshoot = 0.2\nturn_trim_chars = 1000\n"
        'never_trim_headers = ["## Rules"]\nsummarize = false\n',
    )
    assert problems == []
    assert config.enabled
    assert (config.max_input_tokens, config.cache_guard_min_eff) == (180000, 0.4)
    assert (config.cache_guard_max_overshoot, config.turn_trim_chars) == (0.2, 1000)
    assert config.never_trim_headers == ("## Rules",)
    assert config.summarize is False
    assert config.source == str(tmp_path / "agent.toml")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        pytest.param(None, "file not found", id="missing-file"),
        pytest.param("not valid toml =====", "not valid TOML", id="broken-toml"),
        pytest.param('[agent]\nname = "test"\n', "no [budget] table", id="no-section"),
        pytest.param("[budget]\nsummarize = true\n", "missing", id="missing-key"),
        pytest.param("[budget]\nmax_input_tokens = -1\n", "-1", id="negative"),
        pytest.param("[budget]\nmax_input_tokens = 150000.0\n", "150000.0", id="float"),
        pytest.param("[budget]\nmax_input_tokens = true\n", "True", id="bool"),
        pytest.param('[budget]\nmax_input_tokens = "9"\n', "'9'", id="string"),
    ],
)
def test_unusable_files_turn_enforcement_off_and_say_why(
    tmp_path: Path, text: str | None, needle: str
) -> None:
    config, problems = load(tmp_path, text)
    assert not config.enabled
    assert len(problems) == 1
    assert needle in problems[0]
    assert (config.cache_guard_min_eff, config.cache_guard_max_overshoot) == (0.5, 0.15)


def test_explicit_zero_budget_is_off_without_a_warning(tmp_path: Path) -> None:
    config, problems = load(tmp_path, "[budget]\nmax_input_tokens = 0\n")
    assert not config.enabled
    assert problems == []


def test_explicit_zero_turns_the_guard_off(tmp_path: Path) -> None:
    config, problems = load(tmp_path, "[budget]\nmax_input_tokens = 10\ncache_guard_min_eff = 0\n")
    assert problems == []
    assert config.cache_guard_min_eff == 0.0
    assert not config.cache_guard_on
    assert config.cache_guard_max_overshoot == 0.15


def test_bad_optional_keys_fall_back_with_a_warning(tmp_path: Path) -> None:
    config, problems = load(
        tmp_path,
        '[budget]\nmax_input_tokens = 10\ncache_guard_min_eff = "0"\n'
        "tool_outputs_kept = true\nturn_trim_char = 5\n",
    )
    assert config.enabled
    assert config.cache_guard_min_eff == 0.5, "a string never turns the guard off"
    assert config.tool_outputs_kept == 3
    assert len(problems) == 3
    assert any("turn_trim_char " in p and "spelling" in p for p in problems)


def test_default_sink_logs_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="ctxbudget"):
        config = load_budget_config(tmp_path / "nope.toml")
    assert not config.enabled
    assert "config_invalid" in caplog.text
    assert "nope.toml" in caplog.text


@pytest.mark.parametrize(
    "kwargs",
    [{"max_input_tokens": -5}, {"tool_outputs_kept": True}, {"never_trim_headers": "## Identity"}],
)
def test_code_built_configs_are_checked(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        BudgetConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "key", "default"),
    [
        pytest.param("cache_guard_max_overshoot = 15", "cache_guard_max_overshoot", 0.15, id="15"),
        pytest.param(
            "cache_guard_max_overshoot = inf", "cache_guard_max_overshoot", 0.15, id="inf"
        ),
        pytest.param(
            "cache_guard_max_overshoot = nan", "cache_guard_max_overshoot", 0.15, id="nan"
        ),
        pytest.param("cache_guard_min_eff = 1.5", "cache_guard_min_eff", 0.5, id="eff>1"),
        pytest.param("cache_guard_min_eff = -0.1", "cache_guard_min_eff", 0.5, id="eff<0"),
        pytest.param("turn_trim_chars = 0", "turn_trim_chars", 800, id="zero-threshold"),
        pytest.param("tool_outputs_kept = -1", "tool_outputs_kept", 3, id="negative-count"),
        pytest.param("turn_trim_head_chars = 2.5", "turn_trim_head_chars", 300, id="float-count"),
    ],
)
def test_values_outside_their_range_are_reported_and_fall_back_to_the_default(
    tmp_path: Path, line: str, key: str, default: float
) -> None:
    """Issue 11: ``cache_guard_max_overshoot = 15`` (meant as 15 %) opened the gate."""
    path = tmp_path / "agent.toml"
    path.write_text(f"[budget]\nmax_input_tokens = 1000\n{line}\n", encoding="utf-8")
    sink = RecordingSink()
    config = load_budget_config(path, sink=sink)
    assert getattr(config, key) == default
    assert config.enabled
    (event,) = sink.events
    assert event.name == "config_invalid"
    assert event.fields["key"] == key
    assert str(event.fields["allowed"]) in event.message
    assert "in [" in str(event.fields["allowed"]), "the message names the range"
    assert line.split(" = ")[1] in event.message or "nan" in line, "and the value"


def test_a_rejected_overshoot_never_lets_a_hot_cache_send_five_times_the_budget(
    tmp_path: Path,
) -> None:
    path = tmp_path / "agent.toml"
    path.write_text("[budget]\nmax_input_tokens = 200\ncache_guard_max_overshoot = 15\n", "utf-8")
    config = load_budget_config(path, sink=RecordingSink())
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a" * 4_000},
            {"role": "user", "content": "next"},
        ],
    }
    result = enforce_budget(body, config, counter=CJKCounter(), cache_efficiency=0.95)
    assert result.info.compressed, "the guard skips only mild overshoots"
    assert result.estimate_after <= 200


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cache_guard_max_overshoot": 15.0},
        {"cache_guard_max_overshoot": math.inf},
        {"cache_guard_min_eff": math.nan},
        {"turn_trim_chars": 0},
        {"summarizer": "gpt-4o"},
    ],
)
def test_code_built_configs_outside_their_ranges_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="must be"):
        BudgetConfig(**kwargs)  # type: ignore[arg-type]


def test_the_extractive_summarizer_can_be_named_in_the_file(tmp_path: Path) -> None:
    config, problems = load(
        tmp_path, '[budget]\nmax_input_tokens = 10\nsummarizer = "extractive"\n'
    )
    assert problems == []
    assert config.summarizer == "extractive"
    _, problems = load(tmp_path, '[budget]\nmax_input_tokens = 10\nsummarizer = "gpt"\n')
    assert len(problems) == 1
    assert "summarizer" in problems[0]
