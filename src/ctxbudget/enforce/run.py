"""``enforce_budget`` and ``enforce_budget_async``: small drivers around ``enforcement_flow``."""

from __future__ import annotations

import inspect
from collections.abc import Generator, Mapping
from typing import Any

from ctxbudget.archives import Archive, AsyncArchive
from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.events import EventSink, LoggingSink
from ctxbudget.enforce.pipeline import Enforced, FlowOptions, enforcement_flow
from ctxbudget.enforce.stage import ArchiveCall, Call
from ctxbudget.errors import ConfigError
from ctxbudget.formats import FormatName, Request, RequestCache, shared_cache
from ctxbudget.models import ModelInfo
from ctxbudget.summaries import AsyncSummarizer, ExtractiveSummarizer, Summarizer
from ctxbudget.tokens import CachingCounter, TokenCounter, default_counter
from ctxbudget.tokens.arguments import counter_argument

__all__ = [
    "enforce_budget",
    "enforce_budget_async",
]


def _options(
    config: BudgetConfig,
    *,
    model: ModelInfo | None,
    counter: TokenCounter | None,
    sink: EventSink | None,
    cache: RequestCache | None,
    hard_cap: int | None,
    window: int,
    output_reserve: int,
    cost_pressure: bool,
    price_tier_tokens: int | None,
    cache_efficiency: float | None,
    summarizer: object | None,
    archive: object | None,
) -> FlowOptions:
    _check_config(config)
    _check_limits(
        hard_cap=hard_cap,
        window=window,
        output_reserve=output_reserve,
        price_tier_tokens=price_tier_tokens,
        cache_efficiency=cache_efficiency,
        cost_pressure=cost_pressure,
    )
    _check_hosts(sink=sink, cache=cache, summarizer=summarizer, archive=archive)
    if model is not None:
        window, output_reserve, price_tier_tokens = _model_limits(
            model, window, output_reserve, price_tier_tokens
        )
    if counter is None:
        counter = default_counter()  # shared and already caching by content
    elif not isinstance(counter, CachingCounter):
        counter = CachingCounter(counter)  # repeated texts within one call are counted once
    return FlowOptions(
        config=config,
        counter=counter,
        sink=sink if sink is not None else LoggingSink(),
        cache=cache if cache is not None else shared_cache(),
        hard_cap=hard_cap,
        window=window,
        output_reserve=output_reserve,
        cost_pressure=cost_pressure,
        price_tier_tokens=price_tier_tokens,
        cache_efficiency=cache_efficiency,
        can_summarize=summarizer is not None,
        can_archive=archive is not None,
    )


def _check_config(config: object) -> None:
    if not isinstance(config, BudgetConfig):
        raise ConfigError(
            f"config is a {type(config).__name__}; pass a BudgetConfig "
            "(or load one with load_budget_config)"
        )


def _check_limits(
    *,
    hard_cap: object,
    window: object,
    output_reserve: object,
    price_tier_tokens: object,
    cache_efficiency: object,
    cost_pressure: object,
) -> None:
    """Token limits are whole numbers; 0 (or ``None`` where allowed) means "not given",
    and a negative one is refused rather than read as "not given"."""
    for name, value, optional in (
        ("hard_cap", hard_cap, True),
        ("window", window, False),
        ("output_reserve", output_reserve, False),
        ("price_tier_tokens", price_tier_tokens, True),
    ):
        if value is None and optional:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            continue
        none = " or None" if optional else ""
        raise ConfigError(
            f"enforce_budget: {name} ({value!r}) must be a non-negative integer of tokens{none}"
        )
    efficiency_ok = cache_efficiency is None or (
        isinstance(cache_efficiency, int | float)
        and not isinstance(cache_efficiency, bool)
        and 0 <= cache_efficiency <= 1
    )
    if not efficiency_ok:
        raise ConfigError(
            f"enforce_budget: cache_efficiency ({cache_efficiency!r}) must be a fraction in "
            "[0, 1] or None (unknown)"
        )
    if not isinstance(cost_pressure, bool):
        raise ConfigError(
            f"enforce_budget: cost_pressure ({cost_pressure!r}) must be True or False"
        )


def _check_hosts(*, sink: object, cache: object, summarizer: object, archive: object) -> None:
    """The objects a host plugs in have the methods enforcement will call."""
    for name, value, methods, kind in (
        ("sink", sink, ("emit",), "an EventSink (ctxbudget.enforce.LoggingSink)"),
        ("cache", cache, (), "a RequestCache (ctxbudget.formats.RequestCache)"),
        ("summarizer", summarizer, ("summarize",), "a Summarizer (ctxbudget.summaries)"),
        ("archive", archive, ("store",), "an Archive (ctxbudget.archives)"),
    ):
        if value is None:
            continue
        if name == "cache":
            usable = isinstance(value, RequestCache)
        else:
            usable = all(callable(getattr(value, method, None)) for method in methods)
        if not usable:
            raise ConfigError(
                f"enforce_budget: {name} is a {type(value).__name__}, not {kind}; pass one or None"
            )


def _counter(counter: object) -> TokenCounter | None:
    return None if counter is None else counter_argument(counter, "enforce_budget")


def _model_limits(
    model: ModelInfo, window: int, output_reserve: int, price_tier_tokens: int | None
) -> tuple[int, int, int | None]:
    """The window, output reserve and first price cliff of ``model``, where the caller
    gave none (the caller's own figures win)."""
    if not isinstance(model, ModelInfo):
        raise ConfigError(
            f"model is a {type(model).__name__}; pass a ModelInfo (ctxbudget.models.model_info)"
        )
    if window <= 0 and model.context_window:
        window = model.context_window
    if output_reserve <= 0 and model.max_output_tokens:
        output_reserve = model.max_output_tokens
    if price_tier_tokens is None:
        cliffs = [tier.above_tokens for tier in model.price_tiers if tier.above_tokens > 0]
        price_tier_tokens = min(cliffs, default=None)
    return window, output_reserve, price_tier_tokens


def _named_summarizer(config: BudgetConfig, counter: TokenCounter | None) -> Summarizer | None:
    """The summarizer ``[budget] summarizer`` names, for hosts that pass none."""
    if isinstance(config, BudgetConfig) and config.summarizer == "extractive":
        return ExtractiveSummarizer(counter)
    return None


def _text(answer: object, what: str) -> str:
    if not isinstance(answer, str):
        raise ConfigError(f"{what} returned {type(answer).__name__}, not str; return the text")
    return answer


def enforce_budget(
    body: Mapping[str, Any],
    config: BudgetConfig,
    *,
    format: FormatName | None = None,
    model: ModelInfo | None = None,
    counter: TokenCounter | str | None = None,
    hard_cap: int | None = None,
    window: int = 0,
    output_reserve: int = 0,
    cost_pressure: bool = False,
    price_tier_tokens: int | None = None,
    cache_efficiency: float | None = None,
    summarizer: Summarizer | None = None,
    archive: Archive | None = None,
    sink: EventSink | None = None,
    cache: RequestCache | None = None,
    parsed: Request | None = None,
) -> Enforced:
    """Hold ``body`` to ``config``'s budget: the same body when it fits, a smaller one
    when a stage makes it fit, ``BudgetExceeded`` when nothing does.

    ``format``: ``"openai"``, ``"anthropic"`` or ``"openai-responses"``; detected
    from the body when ``None``. ``model``: a ``ctxbudget.models.ModelInfo``; its
    context window, maximum output and first price cliff fill ``window``,
    ``output_reserve`` and ``price_tier_tokens`` where those are not given (the
    counter stays the caller's: budgets are guarded by the conservative default).
    ``counter``: a ``TokenCounter``, or a spec string resolved with
    ``ctxbudget.tokens.get_counter`` (``UnknownCounterError`` when it names none);
    defaults to the library's default counter. ``hard_cap``: the model's input
    cap; ``window``: the model's context window, from which the cap is derived
    for this body (its ``max_tokens`` reserved, or ``output_reserve`` when it sets
    none; see ``formats.input_cap``); these limits are non-negative integers (0:
    not given), a negative one is refused with ``ConfigError``.
    The budget never exceeds the cap and the cache guard never lets a request
    past it. ``cost_pressure``: trim harder; ``price_tier_tokens``: the input size
    where the model's price per token goes up: a request estimated above it is
    under cost pressure too. ``cache_efficiency``: the recent prompt-cache
    efficiency (0-1) for the cache guard; ``None`` (unknown) never skips.
    ``summarizer``: a ``ctxbudget.summaries.Summarizer`` for the summary stage
    (default: the one ``config.summarizer`` names, if any). ``archive``: a
    ``ctxbudget.archives.Archive`` that keeps originals before stubs and summaries
    replace them. ``sink``: where events go (default: the ``ctxbudget`` logger).
    ``cache``: where work is reused across requests (default:
    ``formats.shared_cache()``). ``parsed``: the caller's ``parse_request(body, …)``
    of this very body, when it has one (a proxy parses the body before enforcing it):
    the body is then not parsed again. The caller's body is never modified.
    """
    counter = _counter(counter)
    if summarizer is None:
        summarizer = _named_summarizer(config, counter)
    options = _options(
        config,
        model=model,
        counter=counter,
        sink=sink,
        cache=cache,
        hard_cap=hard_cap,
        window=window,
        output_reserve=output_reserve,
        cost_pressure=cost_pressure,
        price_tier_tokens=price_tier_tokens,
        cache_efficiency=cache_efficiency,
        summarizer=summarizer,
        archive=archive,
    )
    flow = enforcement_flow(body, format, options, parsed)
    try:
        call = next(flow)
        while True:
            call = flow.send(_answer(call, summarizer, archive))
    except StopIteration as done:
        result: Enforced = done.value
        return result


def _answer(call: Call, summarizer: Summarizer | None, archive: Archive | None) -> str:
    if isinstance(call, ArchiveCall):
        assert archive is not None  # the flow only asks when an archive was given
        answer: object = archive.store(call.original)
        what = "archive.store"
    else:
        assert summarizer is not None
        answer = summarizer.summarize(call.request)
        what = "summarizer.summarize"
    if inspect.isawaitable(answer):
        close = getattr(answer, "close", None)
        if close is not None:
            close()  # never awaited: close it so Python does not warn about it
        raise ConfigError(f"{what} is async; use enforce_budget_async with async hosts")
    return _text(answer, what)


async def enforce_budget_async(
    body: Mapping[str, Any],
    config: BudgetConfig,
    *,
    format: FormatName | None = None,
    model: ModelInfo | None = None,
    counter: TokenCounter | str | None = None,
    hard_cap: int | None = None,
    window: int = 0,
    output_reserve: int = 0,
    cost_pressure: bool = False,
    price_tier_tokens: int | None = None,
    cache_efficiency: float | None = None,
    summarizer: Summarizer | AsyncSummarizer | None = None,
    archive: Archive | AsyncArchive | None = None,
    sink: EventSink | None = None,
    cache: RequestCache | None = None,
    parsed: Request | None = None,
) -> Enforced:
    """``enforce_budget`` for async hosts; the summarizer and archive may be sync or async."""
    counter = _counter(counter)
    if summarizer is None:
        summarizer = _named_summarizer(config, counter)
    options = _options(
        config,
        model=model,
        counter=counter,
        sink=sink,
        cache=cache,
        hard_cap=hard_cap,
        window=window,
        output_reserve=output_reserve,
        cost_pressure=cost_pressure,
        price_tier_tokens=price_tier_tokens,
        cache_efficiency=cache_efficiency,
        summarizer=summarizer,
        archive=archive,
    )
    flow: Generator[Call, str, Enforced] = enforcement_flow(body, format, options, parsed)
    try:
        call = next(flow)
        while True:
            call = flow.send(await _answer_async(call, summarizer, archive))
    except StopIteration as done:
        result: Enforced = done.value
        return result


async def _answer_async(
    call: Call,
    summarizer: Summarizer | AsyncSummarizer | None,
    archive: Archive | AsyncArchive | None,
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
    return _text(answer, what)
