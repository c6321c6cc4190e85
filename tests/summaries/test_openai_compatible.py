"""OpenAICompatibleSummarizer against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from ctxbudget.content import Message, TextBlock
from ctxbudget.errors import ConfigError, SummarizerError
from ctxbudget.summaries import (
    CHECKPOINT_OPEN,
    SECTION_NAMES,
    AsyncOpenAICompatibleSummarizer,
    OpenAICompatibleSummarizer,
    SummaryRequest,
)
from tests.chat_server import Answer, ChatServer

SPAN = (
    Message("user", (TextBlock("Fix the flaky test in tests/test_io.py"),)),
    Message("assistant", (TextBlock("I found the race in io.py."),)),
)


def test_success_posts_the_section_prompt_and_returns_the_text(server: ChatServer) -> None:
    server.default = Answer(content="  ## Task\n- fix the flaky test  ")
    summarizer = OpenAICompatibleSummarizer(
        server.base_url, "small-model", api_key="k", max_tokens=500
    )
    text = summarizer.summarize(SummaryRequest(SPAN, 300))
    assert text == "## Task\n- fix the flaky test"
    (body,) = server.requests
    assert body["model"] == "small-model"
    assert body["max_tokens"] == 300  # the request asked for less than the cap
    system, user = body["messages"]
    assert all(f"## {name}" in system["content"] for name in SECTION_NAMES)
    assert CHECKPOINT_OPEN in system["content"]  # told to merge a prior checkpoint
    assert "User: Fix the flaky test in tests/test_io.py" in user["content"]
    assert server.headers[0]["Authorization"] == "Bearer k"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (Answer(status=503), "http_status"),
        (Answer(finish_reason="length"), "truncated"),
        (Answer(content="   "), "empty"),
        (Answer(content=None), "empty"),
        (Answer(raw="not json"), "bad_response"),
    ],
)
def test_each_failure_is_a_summarizer_error_naming_its_reason(
    server: ChatServer, answer: Answer, reason: str
) -> None:
    server.default = answer
    summarizer = OpenAICompatibleSummarizer(server.base_url, "m")
    with pytest.raises(SummarizerError) as caught:
        summarizer.summarize(SummaryRequest(SPAN, 100))
    assert caught.value.reason == reason


def test_a_slow_server_is_a_timeout(server: ChatServer) -> None:
    server.default = Answer(delay_s=1.0)
    summarizer = OpenAICompatibleSummarizer(server.base_url, "m", timeout=0.2)
    with pytest.raises(SummarizerError) as caught:
        summarizer.summarize(SummaryRequest(SPAN, 100))
    assert caught.value.reason == "timeout"


def test_an_unreachable_server_is_named() -> None:
    summarizer = OpenAICompatibleSummarizer("http://127.0.0.1:9/v1", "m", timeout=2)
    with pytest.raises(SummarizerError) as caught:
        summarizer.summarize(SummaryRequest(SPAN, 100))
    assert caught.value.reason in ("unreachable", "timeout")


def test_a_span_larger_than_the_window_is_summarized_in_chunks_then_merged(
    server: ChatServer,
) -> None:
    server.answers = [Answer(content="first part"), Answer(content="second part")]
    server.default = Answer(content="all of it")
    long = tuple(Message("user", (TextBlock(f"message {i} " + "word " * 600),)) for i in range(8))
    summarizer = OpenAICompatibleSummarizer(
        server.base_url, "m", max_tokens=200, context_window=2500
    )
    text = summarizer.summarize(SummaryRequest(long, 200))
    assert len(server.requests) >= 3
    assert text == "all of it"
    second = server.requests[1]["messages"][1]["content"]
    assert f"{CHECKPOINT_OPEN}\nfirst part" in second  # each chunk carries the summary so far
    for body in server.requests:
        assert body["max_tokens"] == 200
    seen = "".join(body["messages"][1]["content"] for body in server.requests)
    assert all(f"message {i} " in seen for i in range(8))


def test_a_window_too_small_for_max_tokens_is_refused_at_construction(server: ChatServer) -> None:
    with pytest.raises(ConfigError, match="context_window"):
        OpenAICompatibleSummarizer(server.base_url, "m", max_tokens=8192, context_window=8192)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("ftp://x", "m"), "base_url"),
        (("http://x", ""), "model"),
    ],
)
def test_bad_settings_are_refused(args: tuple[str, str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        OpenAICompatibleSummarizer(*args)


def test_the_async_summarizer_speaks_the_same_protocol(server: ChatServer) -> None:
    server.answers = [Answer(content="async summary"), Answer(status=500)]
    summarizer = AsyncOpenAICompatibleSummarizer(server.base_url, "m")
    assert asyncio.run(summarizer.summarize(SummaryRequest(SPAN, 100))) == "async summary"
    with pytest.raises(SummarizerError) as caught:
        asyncio.run(summarizer.summarize(SummaryRequest(SPAN, 100)))
    assert caught.value.reason == "http_status"
