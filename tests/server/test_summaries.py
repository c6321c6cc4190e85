"""Summaries of re-sent spans are computed once: the cache alone and through the proxy."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx

from ctxbudget.content import Message, TextBlock
from ctxbudget.enforce import BudgetConfig
from ctxbudget.server import SpanSummaryCache
from ctxbudget.testing.provider import StubProvider
from tests.server.conftest import MakeProxy


@dataclass(frozen=True)
class Span:
    messages: tuple[Message, ...]
    max_tokens: int


@dataclass
class CountingSummarizer:
    """Summarizes anything as a fixed line; counts the calls."""

    calls: list[Any] = field(default_factory=list)

    def summarize(self, request: Any) -> str:
        self.calls.append(request)
        return f"- summary number {len(self.calls)}"


def span(*texts: str) -> Span:
    return Span(tuple(Message("user", (TextBlock(t),)) for t in texts), 100)


def test_a_span_seen_before_is_not_summarized_again() -> None:
    inner = CountingSummarizer()
    cache = SpanSummaryCache(inner, max_bytes=10_000)
    first = asyncio.run(cache.summarize(span("a", "b")))
    again = asyncio.run(cache.summarize(span("a", "b")))
    other = asyncio.run(cache.summarize(span("a", "c")))
    assert first == again == "- summary number 1"
    assert other == "- summary number 2"
    assert (cache.hits, cache.misses) == (1, 2)


def test_the_cache_stays_within_its_byte_bound() -> None:
    inner = CountingSummarizer()
    cache = SpanSummaryCache(inner, max_bytes=300)
    for index in range(20):
        asyncio.run(cache.summarize(span(f"turn {index}")))
    assert 0 < cache.size_bytes <= 300
    asyncio.run(cache.summarize(span("turn 0")))  # evicted long ago: summarized again
    assert cache.misses == 21


def test_proxy_summarizes_a_re_sent_span_once(
    make_proxy: MakeProxy, stub: tuple[StubProvider, str], http: httpx.Client
) -> None:
    summarizer = CountingSummarizer()
    proxy = make_proxy(budget=BudgetConfig(max_input_tokens=600), summarizer=summarizer)
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    for turn in range(24):
        role = "user" if turn % 2 == 0 else "assistant"
        messages.append({"role": role, "content": f"turn {turn}: " + "words of history " * 12})
    messages.append({"role": "user", "content": "and now?"})
    body = {"model": "gpt-test", "messages": messages}
    headers = {"x-ctxbudget-session": "summarized"}
    for _ in range(2):
        answer = http.post(proxy.url + "/v1/chat/completions", json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        assert "summarize" in answer.headers["x-ctxbudget-stages"]
        sent = stub[0].calls[-1].json()
        assert "- summary number 1" in str(sent["messages"][:2])
    assert len(summarizer.calls) == 1
