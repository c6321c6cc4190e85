"""``enforce`` and ``enforce_async``: two small drivers around ``enforcement_flow``."""

from __future__ import annotations

import inspect
from collections.abc import Generator, Mapping
from typing import Any

from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.events import EventSink, LoggingSink
from ctxbudget.enforce.pipeline import Call, Enforced, FlowOptions, enforcement_flow
from ctxbudget.enforce.protocols import (
    ArchiveCall,
    AsyncOriginalsArchive,
    AsyncTurnSummarizer,
    OriginalsArchive,
    TurnSummarizer,
)
from ctxbudget.errors import ConfigError
from ctxbudget.formats import FormatName
from ctxbudget.tokens import CachingCounter, TokenCounter, default_counter

__all__ = [
    "enforce",
    "enforce_async",
]


def _options(
    config: BudgetConfig,
    counter: TokenCounter | None,
    sink: EventSink | None,
    *,
    hard_cap: int | None,
    cost_pressure: bool,
    cache_efficiency: float | None,
    summarizer: object | None,
    archive: object | None,
) -> FlowOptions:
    if counter is None:
        counter = default_counter()  # shared and already caching by content
    elif not isinstance(counter, CachingCounter):
        counter = CachingCounter(counter)  # repeated texts within one call are counted once
    return FlowOptions(
        config=config,
        counter=counter,
        sink=sink if sink is not None else LoggingSink(),
        hard_cap=hard_cap,
        cost_pressure=cost_pressure,
        cache_efficiency=cache_efficiency,
        can_summarize=summarizer is not None,
        can_archive=archive is not None,
    )


def _handle(answer: object, what: str) -> str:
    if not isinstance(answer, str):
        raise ConfigError(f"{what} returned {type(answer).__name__}, not str; return the text")
    return answer


def enforce(
    body: Mapping[str, Any],
    config: BudgetConfig,
    *,
    format: FormatName,
    counter: TokenCounter | None = None,
    hard_cap: int | None = None,
    cost_pressure: bool = False,
    cache_efficiency: float | None = None,
    summarizer: TurnSummarizer | None = None,
    archive: OriginalsArchive | None = None,
    sink: EventSink | None = None,
) -> Enforced:
    """Hold ``body`` to ``config``'s budget: the same body when it fits, a smaller one
    when a stage makes it fit, ``BudgetExceeded`` when nothing does.

    ``format``: ``"openai"`` or ``"anthropic"``. ``counter``: defaults to the
    library's default counter, memoized per process. ``hard_cap``: the model's
    input cap (``kernel.max_input``); the budget never exceeds it and the cache
    guard never lets a request past it. ``cost_pressure``: trim harder.
    ``cache_efficiency``: the recent prompt-cache efficiency (0-1) for the cache
    guard; ``None`` (unknown) never skips. ``summarizer``/``archive``: see
    ``TurnSummarizer`` and ``OriginalsArchive``. ``sink``: where events go
    (default: the ``ctxbudget`` logger). The caller's body is never modified.
    """
    options = _options(
        config,
        counter,
        sink,
        hard_cap=hard_cap,
        cost_pressure=cost_pressure,
        cache_efficiency=cache_efficiency,
        summarizer=summarizer,
        archive=archive,
    )
    flow = enforcement_flow(body, format, options)
    try:
        call = next(flow)
        while True:
            call = flow.send(_answer(call, summarizer, archive))
    except StopIteration as done:
        result: Enforced = done.value
        return result


def _answer(call: Call, summarizer: TurnSummarizer | None, archive: OriginalsArchive | None) -> str:
    if isinstance(call, ArchiveCall):
        assert archive is not None  # the flow only asks when an archive was given
        answer: object = archive.store(call.original)
        what = "archive.store"
    else:
        assert summarizer is not None
        answer = summarizer.summarize(call.request)
        what = "summarizer.summarize"
    if inspect.isawaitable(answer):
        if inspect.iscoroutine(answer):
            answer.close()  # never awaited: close it so no "never awaited" warning leaks
        raise ConfigError(f"{what} is async; call enforce_async() instead of enforce()")
    return _handle(answer, what)


async def enforce_async(
    body: Mapping[str, Any],
    config: BudgetConfig,
    *,
    format: FormatName,
    counter: TokenCounter | None = None,
    hard_cap: int | None = None,
    cost_pressure: bool = False,
    cache_efficiency: float | None = None,
    summarizer: TurnSummarizer | AsyncTurnSummarizer | None = None,
    archive: OriginalsArchive | AsyncOriginalsArchive | None = None,
    sink: EventSink | None = None,
) -> Enforced:
    """``enforce`` for async hosts; the summarizer and archive may be sync or async."""
    options = _options(
        config,
        counter,
        sink,
        hard_cap=hard_cap,
        cost_pressure=cost_pressure,
        cache_efficiency=cache_efficiency,
        summarizer=summarizer,
        archive=archive,
    )
    flow: Generator[Call, str, Enforced] = enforcement_flow(body, format, options)
    try:
        call = next(flow)
        while True:
            call = flow.send(await _answer_async(call, summarizer, archive))
    except StopIteration as done:
        result: Enforced = done.value
        return result


async def _answer_async(
    call: Call,
    summarizer: TurnSummarizer | AsyncTurnSummarizer | None,
    archive: OriginalsArchive | AsyncOriginalsArchive | None,
) -> str:
    if isinstance(call, ArchiveCall):
        assert archive is not None
        answer: object = archive.store(call.original)
        what = "archive.store"
    else:
        assert summarizer is not None
        answer = summarizer.summarize(call.request)
        what = "summarizer.summarize"
    if inspect.isawaitable(answer):
        answer = await answer
    return _handle(answer, what)
