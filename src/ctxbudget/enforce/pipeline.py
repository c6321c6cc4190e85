"""The enforcement pipeline as one sans-I/O generator.

``enforcement_flow`` does all the deciding, in this order (``docs/enforce.md``):

1. parse (detecting the format when it is not named) and estimate;
2. fast path: enforcement off, or within budget: the body goes out as is;
3. what no stage can shrink: the system prompt (never-trim sections included:
   no stage edits it), the tool declarations and the pending turn; when they
   alone are over budget the request is refused at once, before the cache guard
   (the guard chooses not to compress requests that compression could fit) and
   before any summarizer is paid for nothing;
4. the cache guard: a hot cache and a mild overshoot send the request unchanged;
5. ``STAGES`` in order, least lossy first, stopping at the first fit;
6. a refusal (``BudgetExceeded``) when none fits.

Where a stage needs the host (archive an original, summarize turns) the flow
*yields* a call and is sent the answer, so ``enforce_budget`` and
``enforce_budget_async`` are small drivers around the same code (the httpx
``auth_flow`` pattern).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.echoes import DropOldestToolEchoes
from ctxbudget.enforce.estimate import PENDING, Pricer
from ctxbudget.enforce.events import (
    BUDGET_EXCEEDED,
    CACHE_GUARD_SKIPPED,
    STAGE_APPLIED,
    BudgetEvent,
    EventSink,
)
from ctxbudget.enforce.guard import overshoot_ratio, should_skip_for_cache
from ctxbudget.enforce.sections import protected_tokens
from ctxbudget.enforce.stage import Call, Stage, StageContext
from ctxbudget.enforce.summary import Summarize
from ctxbudget.enforce.trim import TurnTrim
from ctxbudget.errors import BudgetExceeded, ConfigError
from ctxbudget.formats import (
    FormatName,
    Request,
    RequestCache,
    input_cap,
    parse_request,
    render_request,
)
from ctxbudget.kernel import SYSTEM, TOOLS
from ctxbudget.tokens import TokenCounter

__all__ = [
    "NOT_COMPRESSED",
    "STAGES",
    "STAGE_NAMES",
    "CompressionInfo",
    "Enforced",
    "FlowOptions",
    "effective_budget",
    "enforcement_flow",
    "model_cap",
    "refuse_if_unshrinkable",
]

STAGES: Final[tuple[Stage, ...]] = (TurnTrim(), DropOldestToolEchoes(), Summarize())
"""The stages, from least to most lossy (seed 003)."""
STAGE_NAMES: Final = tuple(stage.name for stage in STAGES)


@dataclass(frozen=True, slots=True)
class CompressionInfo:
    """What enforcement did to a request, for the caller's usage telemetry.

    ``stages`` names the stages that changed the request, in order.
    """

    compressed: bool = False
    stages: tuple[str, ...] = ()

    @property
    def stages_text(self) -> str:
        """The stage names joined by commas, e.g. ``"turn_trim,drop_oldest_tool_echoes"``."""
        return ",".join(self.stages)


NOT_COMPRESSED: Final = CompressionInfo()


@dataclass(frozen=True, slots=True)
class Enforced:
    """The request to send and what was done to it.

    ``body`` is the caller's own object when nothing changed (it is never
    modified), and a new body otherwise; ``format`` is the format it was read
    in (detected when the caller named none).
    """

    body: Mapping[str, Any]
    info: CompressionInfo
    estimate_before: int
    estimate_after: int
    format: FormatName


@dataclass(frozen=True, slots=True, kw_only=True)
class FlowOptions:
    """Everything ``enforcement_flow`` needs besides the body.

    ``hard_cap``: the model's input cap as the host computed it. ``window`` (and
    ``output_reserve``, the model's maximum output when the body sets none):
    the model's context window, from which the cap is derived per body
    (``formats.input_cap``); the lower of the two caps holds.
    ``price_tier_tokens``: where the model's input price goes up; a request
    estimated above it is under cost pressure.
    """

    config: BudgetConfig
    counter: TokenCounter
    sink: EventSink
    cache: RequestCache
    hard_cap: int | None = None
    window: int = 0
    output_reserve: int = 0
    cost_pressure: bool = False
    price_tier_tokens: int | None = None
    cache_efficiency: float | None = None
    can_summarize: bool = False
    can_archive: bool = False
    stages: tuple[Stage, ...] = STAGES


def effective_budget(config: BudgetConfig, hard_cap: int | None) -> int:
    """The budget, lowered to the model's hard cap when that is smaller."""
    if hard_cap is not None and hard_cap > 0:
        return min(config.max_input_tokens, hard_cap)
    return config.max_input_tokens


def enforcement_flow(
    body: Mapping[str, Any],
    format: FormatName | None,
    options: FlowOptions,
    parsed: Request | None = None,
) -> Generator[Call, str, Enforced]:
    """Bring ``body`` within budget, or raise ``BudgetExceeded``; see the module doc.
    ``parsed``: the caller's own parse of ``body``, not parsed again."""
    request = _parse(body, format, options, parsed)
    pricer = Pricer(options.counter, options.cache)
    before = pricer.segments(request).total
    hard_cap = model_cap(request, options)
    budget = effective_budget(options.config, hard_cap)
    if not options.config.enabled or before <= budget:
        return Enforced(body, NOT_COMPRESSED, before, before, request.format)
    refuse_if_unshrinkable(request, pricer, budget, options)
    if _cache_guard_skips(before, budget, hard_cap, options):
        return Enforced(body, NOT_COMPRESSED, before, before, request.format)
    pressure = options.cost_pressure or (
        options.price_tier_tokens is not None and before > options.price_tier_tokens
    )
    context = StageContext(
        pricer=pricer,
        budget=budget,
        config=options.config,
        cache=options.cache,
        cost_pressure=pressure,
        can_archive=options.can_archive,
        can_summarize=options.can_summarize,
    )
    outcome = yield from _run_stages(request, context, before, options)
    return outcome


def _parse(
    body: Mapping[str, Any], format: FormatName | None, options: FlowOptions, parsed: Request | None
) -> Request:
    if parsed is None:
        return parse_request(body, format, cache=options.cache)
    if not isinstance(parsed, Request) or parsed.body is not body:
        raise ConfigError(
            "parsed must be the Request that parse_request returned for this very body; "
            "leave it out to have the body parsed here"
        )
    if format is not None and parsed.format != format:
        raise ConfigError(f"parsed is a {parsed.format} request, not {format}")
    return parsed


def model_cap(request: Request, options: FlowOptions) -> int | None:
    """The model's input cap for this body: ``hard_cap`` and the window's, the lower."""
    caps = [cap for cap in (options.hard_cap,) if cap is not None and cap > 0]
    if options.window > 0:
        caps.append(input_cap(request, options.window, default_output=options.output_reserve))
    return min(caps) if caps else None


def refuse_if_unshrinkable(
    request: Request, pricer: Pricer, budget: int, options: FlowOptions
) -> None:
    """Raise ``BudgetExceeded`` when the parts no stage shrinks are over budget alone.

    No stage edits the system prompt (never-trim sections live there), the tool
    declarations or the pending turn; a summary only adds to the system prompt.
    The refusal names the largest of the three.
    """
    segments = pricer.segments(request)
    fixed = {SYSTEM: segments.system, TOOLS: segments.tools, PENDING: segments.pending}
    if sum(fixed.values()) > budget:
        segment = max(fixed, key=lambda name: fixed[name])
        raise _refusal(request, segments.total, budget, (), segment, fixed[segment], options)


def _cache_guard_skips(
    estimated: int, budget: int, hard_cap: int | None, options: FlowOptions
) -> bool:
    config = options.config
    overshoot = overshoot_ratio(estimated, budget)
    skip = should_skip_for_cache(
        options.cache_efficiency,
        overshoot,
        min_eff=config.cache_guard_min_eff,
        max_overshoot=config.cache_guard_max_overshoot,
        estimated=estimated,
        hard_cap=hard_cap,
    )
    if skip:
        options.sink.emit(
            BudgetEvent(
                CACHE_GUARD_SKIPPED,
                f"prompt cache is hot ({options.cache_efficiency:.0%}) and the request only "
                f"{overshoot:.1%} over budget: sending it uncompressed",
                {"estimated_tokens": estimated, "budget_tokens": budget, "overshoot": overshoot},
            )
        )
    return skip


def _run_stages(
    request: Request, context: StageContext, before: int, options: FlowOptions
) -> Generator[Call, str, Enforced]:
    current, applied, tried = request, [], []
    budget = context.budget
    for stage in options.stages:
        if not stage.available(context):
            continue
        tried.append(stage.name)
        result = yield from stage.run(current, context)
        if result is None:
            continue
        current = result
        applied.append(stage.name)
        after = context.pricer.segments(current).total
        options.sink.emit(
            BudgetEvent(
                STAGE_APPLIED,
                f"{stage.name}: about {after} tokens (budget {budget})",
                {"stage": stage.name, "after_tokens": after, "budget_tokens": budget},
            )
        )
        if after <= budget:
            info = CompressionInfo(True, tuple(applied))
            return Enforced(render_request(current), info, before, after, request.format)
    segments = context.pricer.segments(current)
    segment, tokens = segments.largest()
    raise _refusal(current, segments.total, budget, tuple(tried), segment, tokens, options)


def _refusal(
    request: Request,
    estimated: int,
    budget: int,
    tried: tuple[str, ...],
    segment: str,
    segment_tokens: int,
    options: FlowOptions,
) -> BudgetExceeded:
    protected = protected_tokens(request, options.config.never_trim_headers, options.counter)
    error = BudgetExceeded(
        estimated_tokens=estimated,
        budget_tokens=budget,
        stages_tried=tried,
        protected_tokens=protected,
        largest_segment=segment,
        largest_segment_tokens=segment_tokens,
    )
    options.sink.emit(
        BudgetEvent(
            BUDGET_EXCEEDED,
            str(error),
            {
                "estimated_tokens": estimated,
                "budget_tokens": budget,
                "stages_tried": tried,
                "protected_tokens": protected,
                "largest_segment": segment,
                "largest_segment_tokens": segment_tokens,
            },
        )
    )
    return error
