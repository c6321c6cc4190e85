"""enforce(): fast path, floor, cache guard, the three stages, refusal, events."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest

from ctxbudget.archives import Original
from ctxbudget.content import TextBlock, ToolResultBlock
from ctxbudget.content.pairing import check_pairs
from ctxbudget.enforce import (
    NOT_COMPRESSED,
    STAGE_NAMES,
    STAGES,
    SUMMARY_HEADER,
    BudgetConfig,
    CompressionInfo,
    Enforced,
    trim_text,
)
from ctxbudget.enforce import enforce_budget as _enforce
from ctxbudget.enforce import enforce_budget_async as _enforce_async
from ctxbudget.enforce.trim import TrimRule
from ctxbudget.errors import BudgetExceeded, ConfigError
from ctxbudget.formats import RequestCache, parse_request
from ctxbudget.summaries import SummaryRequest
from ctxbudget.testing import (
    AsyncFakeArchive,
    AsyncFakeSummarizer,
    FakeArchive,
    FakeSummarizer,
    RecordingSink,
)
from ctxbudget.tokens import IMAGE_TOKENS, CachingCounter, CJKCounter
from tests.formats.sdk import validate
from tests.formats.strategies import Call, Conversation, Exchange, anthropic_body, openai_body

# Seed 003's counter, so the figures below do not move with the library's default.
SEED_COUNTER = CJKCounter()


def enforce(body: dict[str, Any], cfg: BudgetConfig, **kwargs: Any) -> Enforced:
    kwargs.setdefault("format", "openai")
    return _enforce(body, cfg, counter=kwargs.pop("counter", SEED_COUNTER), **kwargs)


async def enforce_async(body: dict[str, Any], cfg: BudgetConfig, **kwargs: Any) -> Enforced:
    return await _enforce_async(body, cfg, counter=kwargs.pop("counter", SEED_COUNTER), **kwargs)


def chat(system: str, *turns: tuple[str, str]) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}]
    messages += [{"role": role, "content": text} for role, text in turns]
    return {"model": "gpt-4o", "messages": messages}


def tool_conversation(outputs: int, size: int, *, pending: str = "what now?") -> Conversation:
    exchanges = tuple(
        Exchange(f"step {n}", (Call("read_file", {"q": str(n)}, f"{n}" + "y" * size),), f"ok {n}")
        for n in range(outputs)
    )
    return Conversation("## Identity\nYou are the agent.\n", exchanges, pending)


def config(budget: int, **kwargs: Any) -> BudgetConfig:
    return BudgetConfig(max_input_tokens=budget, **kwargs)


# -- fast path, off, floor -------------------------------------------------------------------


def test_disabled_budget_returns_the_same_body() -> None:
    body = chat("s", ("user", "x" * 50_000))
    result = enforce(body, BudgetConfig(), format="openai")
    assert result.body is body
    assert result.info == NOT_COMPRESSED
    assert result.estimate_before == result.estimate_after > 10_000


def test_fast_path_changes_nothing_and_emits_nothing() -> None:
    body = chat("tiny system", ("user", "hi"), ("assistant", "hello"), ("user", "tiny user"))
    sink = RecordingSink()
    result = enforce(body, config(10_000), format="openai", sink=sink)
    assert result.body is body
    assert result.info == CompressionInfo(False, ())
    assert sink.events == []


def test_floor_refuses_at_once_when_protected_sections_and_pending_overflow() -> None:
    body = chat("## Identity\n" + "約" * 3000 + "\n## Notes\nx", ("user", "hi"))
    sink = RecordingSink()
    summarizer = FakeSummarizer()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(body, config(1000), format="openai", sink=sink, summarizer=summarizer)
    error = raised.value
    assert error.stages_tried == ()
    assert error.protected_tokens >= 3918
    assert error.largest_segment == "system"
    assert "system segment" in str(error)
    assert sink.names() == ["budget_exceeded"]
    assert summarizer.calls == []


# -- turn_trim -------------------------------------------------------------------------------


def test_turn_trim_brings_a_long_turn_within_budget() -> None:
    body = chat("system", ("user", "q"), ("assistant", "x" * 50_000), ("user", "ask question"))
    before = copy.deepcopy(body)
    sink = RecordingSink()
    result = enforce(body, config(1000), format="openai", sink=sink)
    assert body == before
    assert result.info == CompressionInfo(True, ("turn_trim",))
    assert result.info.stages_text == "turn_trim"
    trimmed = result.body["messages"][2]["content"]
    assert "[trimmed " in trimmed
    assert len(trimmed) > len(trim_text("x" * 50_000, TrimRule(800, 300, 200))), (
        "the last turn trimmed keeps as much of its head and tail as still fits"
    )
    assert result.estimate_before > 13_000 >= 1000 >= result.estimate_after >= 950
    assert sink.names() == ["stage_applied"]
    assert sink.events[0].fields["stage"] == "turn_trim"
    validate({**result.body}, "openai")


def test_cost_pressure_trims_harder() -> None:
    body = chat(
        "s",
        ("user", "q"),
        ("assistant", "x" * 700),
        ("user", "u"),
        ("assistant", "w" * 3600),
        ("user", "v"),
    )
    normal = enforce(body, config(600), format="openai")
    pressed = enforce(body, config(600), format="openai", cost_pressure=True)
    assert normal.body["messages"][2]["content"] == "x" * 700  # under the 800 threshold
    # under pressure the threshold is 200 and the whole trimmed text fits in it, 3:2
    trimmed = pressed.body["messages"][2]["content"]
    assert trimmed == "x" * 106 + "…\n[trimmed 523 chars]\n…" + "x" * 71
    assert len(trimmed) == 200
    assert pressed.estimate_after < normal.estimate_after


@pytest.mark.parametrize("length", [201, 230, 350, 500, 501, 800, 5_000])
def test_under_cost_pressure_every_text_over_200_chars_shrinks_to_200(length: int) -> None:
    """Issue 11: turns of 201-500 characters could not shrink under pressure."""
    rule = TrimRule.for_config(BudgetConfig(), cost_pressure=True)
    text = "".join(chr(0x4E00 + i % 500) for i in range(length))  # CJK: no byte-level cuts
    trimmed = trim_text(text, rule)
    assert len(trimmed) <= 200 < length
    head, tail = trimmed.split("…\n[trimmed ")[0], trimmed.rsplit("chars]\n…")[1]
    assert text.startswith(head)
    assert text.endswith(tail)
    assert abs(len(head) * 2 - len(tail) * 3) <= 5, "head and tail in the seed's 3:2"


def test_without_cost_pressure_300_and_200_are_kept_around_the_marker() -> None:
    rule = TrimRule.for_config(BudgetConfig(), cost_pressure=False)
    assert trim_text("x" * 1000, rule) == "x" * 300 + "…\n[trimmed 500 chars]\n…" + "x" * 200


def test_refusal_names_the_segment_that_is_too_large() -> None:
    body = chat("s", ("user", "hi"), ("assistant", "y" * 40_000), ("user", "u"))
    sink = RecordingSink()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(body, config(100), format="openai", sink=sink)
    error = raised.value
    assert error.stages_tried == ("turn_trim", "drop_oldest_tool_echoes")
    assert error.budget_tokens == 100
    assert error.estimated_tokens > 100
    assert error.protected_tokens == 0
    assert error.largest_segment == "conversation"
    assert "conversation segment" in str(error)
    assert sink.names() == ["stage_applied", "budget_exceeded"]


def test_parts_no_stage_can_shrink_are_refused_before_any_stage() -> None:
    body = chat("x" * 10_000, ("user", "hi"), ("assistant", "hello"), ("user", "u"))
    summarizer = FakeSummarizer()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(body, config(10), format="openai", summarizer=summarizer)
    assert raised.value.stages_tried == ()
    assert raised.value.largest_segment == "system"
    assert raised.value.estimated_tokens > 2778
    assert summarizer.calls == []


def test_a_pending_turn_over_budget_is_refused_at_once() -> None:
    body = chat("s", ("user", "q"), ("assistant", "a"), ("user", "p" * 20_000))
    with pytest.raises(BudgetExceeded) as raised:
        enforce(body, config(1000), format="openai")
    assert raised.value.stages_tried == ()
    assert raised.value.largest_segment == "pending"


# -- cache guard and hard cap ----------------------------------------------------------------


def over_by_ten_percent() -> tuple[dict[str, Any], int]:
    body = chat("s", ("user", "q"), ("assistant", "x" * 3000), ("user", "u"))
    estimate = enforce(body, BudgetConfig(), format="openai").estimate_before
    return body, int(estimate / 1.1)


def test_hot_cache_and_mild_overshoot_skip_compression() -> None:
    body, budget = over_by_ten_percent()
    sink = RecordingSink()
    result = enforce(body, config(budget), format="openai", cache_efficiency=0.9, sink=sink)
    assert result.body is body
    assert result.info == NOT_COMPRESSED
    assert sink.names() == ["cache_guard_skipped"]


@pytest.mark.parametrize(
    ("kwargs", "guard_config"),
    [
        pytest.param({"cache_efficiency": 0.3}, {}, id="cold-cache"),
        pytest.param({"cache_efficiency": None}, {}, id="unknown-efficiency"),
        pytest.param({"cache_efficiency": 0.9}, {"cache_guard_min_eff": 0}, id="guard-off"),
    ],
)
def test_guard_does_not_skip(kwargs: dict[str, Any], guard_config: dict[str, Any]) -> None:
    body, budget = over_by_ten_percent()
    result = enforce(body, config(budget, **guard_config), format="openai", **kwargs)
    assert result.info.compressed


def test_the_guard_never_lets_a_request_past_the_hard_cap() -> None:
    body, budget = over_by_ten_percent()
    estimate = enforce(body, BudgetConfig(), format="openai").estimate_before
    result = enforce(
        body, config(budget), format="openai", cache_efficiency=0.9, hard_cap=estimate - 1
    )
    assert result.info.compressed
    assert result.estimate_after <= estimate - 1


def test_hard_cap_lowers_the_budget() -> None:
    body = chat("s", ("user", "q"), ("assistant", "x" * 3000), ("user", "u"))
    result = enforce(body, config(100_000), format="openai", hard_cap=300)
    assert result.info.compressed
    assert result.estimate_after <= 300


# -- drop_oldest_tool_echoes -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_oldest_tool_outputs_become_stubs_with_archive_handles(fmt: str) -> None:
    conv = tool_conversation(outputs=8, size=5000)
    body = openai_body(conv) if fmt == "openai" else anthropic_body(conv)
    before = copy.deepcopy(body)
    archive = FakeArchive()
    result = enforce(body, config(1100), format=fmt, archive=archive)  # type: ignore[arg-type]
    assert body == before
    assert result.info.stages == ("turn_trim", "drop_oldest_tool_echoes")
    validate(result.body, fmt)
    request = parse_request(result.body, fmt)
    assert check_pairs(request.messages()).ok
    outputs = [
        b for m in request.messages() for b in m.content if type(b).__name__ == "ToolResultBlock"
    ]
    texts = [b.content[0].text for b in outputs]  # type: ignore[union-attr]
    stubbed = [t.startswith("[tool_echo stripped") for t in texts]
    assert stubbed[-3:] == [False, False, False], "the newest three are kept"
    assert stubbed == sorted(stubbed, reverse=True), "the oldest go first"
    first = archive.originals[0]
    assert first.kind == "tool_output"
    (message,) = first.messages
    (result_block,) = message.content
    assert isinstance(result_block, ToolResultBlock)
    assert result_block.tool_call_id == first.tool_call_id
    assert result_block.content == (TextBlock("0" + "y" * 5000),), "the original, not a trim"
    assert first.tool_name == "read_file"
    assert (
        texts[0]
        == "[tool_echo stripped — 5001 bytes archived; retrieve with handle fake://archive/0]"
    )


def test_without_an_archive_the_stub_says_the_original_is_unavailable() -> None:
    conv = tool_conversation(outputs=6, size=3000)
    conv = Conversation(
        conv.system,
        (Exchange("a", (Call("read_file", {}, "你好" * 1500),), "ok"), *conv.exchanges),
        conv.pending_user,
    )
    result = enforce(openai_body(conv), config(1500, tool_outputs_kept=0), format="openai")
    assert result.body["messages"][3]["content"] == (
        "[tool_echo stripped — 9000 bytes dropped; original unavailable]"
    )


# -- summarize -------------------------------------------------------------------------------


class OrderLog:
    """Sync archive and summarizer that log the order they were called in."""

    def __init__(self, summary: str = "- the user asked for 8 files") -> None:
        self.order: list[str] = []
        self.summary = summary
        self.requests: list[SummaryRequest] = []

    def store(self, original: Original) -> str:
        self.order.append(f"archive:{original.kind}")
        return f"h{len(self.order)}"

    def summarize(self, request: SummaryRequest) -> str:
        self.order.append("summarize")
        self.requests.append(request)
        return self.summary


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_summary_goes_into_the_system_prompt_after_archiving(fmt: str) -> None:
    conv = tool_conversation(outputs=12, size=2000)
    body = openai_body(conv) if fmt == "openai" else anthropic_body(conv)
    log = OrderLog()
    result = enforce(body, config(700), format=fmt, archive=log, summarizer=log)  # type: ignore[arg-type]
    assert result.info.stages[-1] == "summarize"
    assert log.order[-2:] == ["archive:turns", "summarize"]
    validate(result.body, fmt)
    request = parse_request(result.body, fmt)
    assert check_pairs(request.messages()).ok
    first = request.messages()[0].role
    assert first == "user" if fmt == "anthropic" else first in ("user", "assistant")
    system_texts = [b.text for t in request.system for b in t.message.content]  # type: ignore[union-attr]
    assert system_texts[0] == conv.system, "the original system prompt is untouched"
    section = system_texts[-1]
    assert section.startswith(SUMMARY_HEADER + "\n[summary of earlier ")
    assert "- the user asked for 8 files" in section
    assert section.endswith(
        "[originals archived; retrieve with handle h" + str(len(log.order) - 1) + "]"
    )
    assert all(SUMMARY_HEADER not in str(m) for m in request.messages()), "never a turn"
    summarized = sum(len(str(m)) for m in log.requests[0].messages)
    assert summarized < 12 * 1000, "the summarizer sees trimmed turns"
    assert 0 < log.requests[0].max_tokens <= 700, "the summary gets the room the budget leaves"


def test_summarizer_is_not_asked_when_summarizing_cannot_help() -> None:
    conv = tool_conversation(outputs=6, size=100, pending="p" * 3200)
    summarizer = FakeSummarizer()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(
            openai_body(conv),
            config(1000, never_trim_headers=()),
            format="openai",
            summarizer=summarizer,
        )
    assert summarizer.calls == []
    assert raised.value.stages_tried[-1] == "summarize"
    assert raised.value.largest_segment == "pending"


@pytest.mark.parametrize("summary", ["", "   ", "## Identity\nI am someone else"])
def test_empty_or_forged_summaries_are_not_used(summary: str) -> None:
    conv = tool_conversation(outputs=12, size=2000)
    with pytest.raises(BudgetExceeded):
        enforce(openai_body(conv), config(700), format="openai", summarizer=FakeSummarizer(summary))


def test_summarize_can_be_turned_off_in_config() -> None:
    conv = tool_conversation(outputs=12, size=2000)
    summarizer = FakeSummarizer()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(
            openai_body(conv), config(700, summarize=False), format="openai", summarizer=summarizer
        )
    assert "summarize" not in raised.value.stages_tried
    assert summarizer.calls == []


# -- sync / async ----------------------------------------------------------------------------


def test_async_path_gives_the_same_body_as_the_sync_path() -> None:
    conv = tool_conversation(outputs=12, size=2000)
    body = anthropic_body(conv)
    sync = enforce(
        body,
        config(700),
        format="anthropic",
        archive=FakeArchive(),
        summarizer=FakeSummarizer(),
    )
    async_archive = AsyncFakeArchive()
    result = asyncio.run(
        enforce_async(
            body,
            config(700),
            format="anthropic",
            archive=async_archive,
            summarizer=AsyncFakeSummarizer(),
        )
    )
    assert result == sync
    mixed = asyncio.run(
        enforce_async(
            body,
            config(700),
            format="anthropic",
            archive=FakeArchive(),
            summarizer=AsyncFakeSummarizer(),
        )
    )
    assert mixed == sync
    assert len(async_archive.inner.originals) > 1


def test_sync_enforce_refuses_an_async_summarizer() -> None:
    conv = tool_conversation(outputs=12, size=2000)
    with pytest.raises(ConfigError, match="enforce_budget_async"):
        enforce(
            openai_body(conv),
            config(700),
            format="openai",
            summarizer=AsyncFakeSummarizer(),  # type: ignore[arg-type]
        )


def test_host_errors_propagate_unchanged() -> None:
    conv = tool_conversation(outputs=8, size=5000)
    archive = FakeArchive(fail_with=OSError("disk full"))
    with pytest.raises(OSError, match="disk full"):
        enforce(openai_body(conv), config(1100), format="openai", archive=archive)


def test_default_sink_is_the_ctxbudget_logger(caplog: pytest.LogCaptureFixture) -> None:
    body = chat("system", ("user", "q"), ("assistant", "x" * 50_000), ("user", "ask"))
    with caplog.at_level("INFO", logger="ctxbudget"):
        enforce(body, config(1000), format="openai")
    record = caplog.records[0]
    assert record.name == "ctxbudget"
    assert record.ctxbudget_event == "stage_applied"  # type: ignore[attr-defined]


def test_warm_calls_see_messages_changed_in_place() -> None:
    body = chat("system", ("user", "q"), ("assistant", "x" * 5000), ("user", "ask"))
    warm = CachingCounter(CJKCounter())  # shared: counts and message prices carry over
    first = enforce(body, config(1000), counter=warm)
    assert enforce(body, config(1000), counter=warm) == first
    body["messages"][2]["content"] = "y" * 9000
    changed = enforce(body, config(1000), counter=warm)
    assert changed.estimate_before > first.estimate_before
    assert changed.body["messages"][2]["content"].startswith("y" * 300)


def test_an_image_costs_image_tokens_not_its_base64_text() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 400_000}}
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "what is it?"}, image]}],
    }
    result = enforce(body, config(5_000), format="openai")
    assert result.info == NOT_COMPRESSED
    assert IMAGE_TOKENS <= result.estimate_before < IMAGE_TOKENS + 50


# -- stages, the unshrinkable step, what the host plugs in -----------------------------------


def test_stages_are_named_objects_in_one_ordered_list() -> None:
    assert [stage.name for stage in STAGES] == ["turn_trim", "drop_oldest_tool_echoes", "summarize"]
    assert STAGE_NAMES == ("turn_trim", "drop_oldest_tool_echoes", "summarize")
    for stage in STAGES:
        assert callable(stage.run)
        assert callable(stage.available)


def test_what_no_stage_can_shrink_is_refused_even_under_a_hot_cache() -> None:
    """One step: system prompt + tools + pending over budget refuses before the guard."""
    body = chat("## Identity\n" + "x" * 4_000, ("user", "hi"), ("assistant", "ok"), ("user", "u"))
    sink = RecordingSink()
    with pytest.raises(BudgetExceeded) as raised:
        enforce(body, config(1_000), cache_efficiency=0.99, sink=sink)
    assert raised.value.stages_tried == ()
    assert raised.value.protected_tokens > 0, "the never-trim section is reported"
    assert sink.names() == ["budget_exceeded"]


def test_the_extractive_summarizer_named_in_config_runs_offline() -> None:
    conv = tool_conversation(outputs=12, size=2000)
    result = enforce(openai_body(conv), config(700, summarizer="extractive"))
    assert result.info.stages[-1] == "summarize"
    assert result.estimate_after <= 700
    with pytest.raises(BudgetExceeded):
        enforce(openai_body(conv), config(700))


def test_a_request_over_the_price_tier_is_under_cost_pressure() -> None:
    body = chat(
        "s", ("user", "q"), ("assistant", "x" * 700), ("assistant", "w" * 3600), ("user", "v")
    )
    tiered = enforce(body, config(600), price_tier_tokens=500)
    pressed = enforce(body, config(600), cost_pressure=True)
    assert tiered.body == pressed.body
    assert enforce(body, config(600), price_tier_tokens=50_000).body != pressed.body


def test_enforcement_uses_the_cache_the_caller_owns() -> None:
    cache = RequestCache()
    body = chat("s", ("user", "q"), ("assistant", "x" * 5000), ("user", "v"))
    first = enforce(body, config(600), cache=cache)
    assert len(cache) > 0
    assert cache.bytes_used > 0
    again = enforce(body, config(600), cache=cache)
    assert again.body == first.body
    cache.clear()
    assert enforce(body, config(600), cache=cache).body == first.body


def test_the_format_is_detected_and_reported() -> None:
    conv = tool_conversation(outputs=3, size=100)
    assert _enforce(anthropic_body(conv), config(10**6)).format == "anthropic"
    assert _enforce(openai_body(conv), config(10**6)).format == "openai"


def test_a_models_window_output_limit_and_price_cliff_plug_in() -> None:
    """``models.ModelInfo`` fills the window, the output reserve and the price tier."""
    from decimal import Decimal

    from ctxbudget.models import ModelInfo, PriceTier

    tiers = (PriceTier(0, Decimal(1), Decimal(2)), PriceTier(500, Decimal(2), Decimal(4)))
    model = ModelInfo("tiny", "cjk", context_window=1_000, max_output_tokens=200, price_tiers=tiers)
    body = chat(
        "s", ("user", "q"), ("assistant", "x" * 700), ("assistant", "w" * 3600), ("user", "v")
    )
    roomy = config(100_000)
    result = enforce(body, roomy, model=model)
    assert result.estimate_after <= 800, "the window minus the model's output limit"
    pressed = enforce(body, roomy, hard_cap=800, cost_pressure=True)
    assert result.body == pressed.body, "over the 500-token cliff: under cost pressure"
    own_window = enforce(body, roomy, model=model, window=2_000, price_tier_tokens=10**6)
    assert own_window.estimate_after <= 1_800
    assert own_window.body != result.body, "the caller's own figures win"
    with pytest.raises(ConfigError, match="ModelInfo"):
        enforce(body, roomy, model="tiny")


def test_tool_declarations_are_priced_once_and_again_when_edited_in_place() -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "short"}}]
    body = {**chat("s", ("user", "q")), "tools": tools}
    cache = RequestCache()
    first = enforce(body, config(10**6), cache=cache).estimate_before
    assert enforce(body, config(10**6), cache=cache).estimate_before == first
    tools[0]["function"]["description"] = "much longer now " * 50  # type: ignore[index]
    assert enforce(body, config(10**6), cache=cache).estimate_before > first + 100
