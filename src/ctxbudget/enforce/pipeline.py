"""The enforcement pipeline as one sans-I/O generator.

``enforcement_flow`` does all the deciding: parse, estimate, fast path, the
never-trim floor, the cache guard, then the stages from least to most lossy,
stopping at the first that fits, and a refusal when none does. Where it needs
the host (archive an original, summarize turns) it *yields* a call and is sent
the answer, so ``enforce`` and ``enforce_async`` are small drivers around the
same code (the httpx ``auth_flow`` pattern).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.echoes import drop_oldest_tool_echoes
from ctxbudget.enforce.estimate import PENDING, Pricer
from ctxbudget.enforce.events import (
    BUDGET_EXCEEDED,
    CACHE_GUARD_SKIPPED,
    STAGE_APPLIED,
    BudgetEvent,
    EventSink,
)
from ctxbudget.enforce.guard import overshoot_ratio, should_skip_for_cache
from ctxbudget.enforce.protocols import ArchiveCall, SummarizeCall
from ctxbudget.enforce.sections import protected_tokens
from ctxbudget.enforce.summary import summarize
from ctxbudget.enforce.trim import TrimRule, turn_trim
from ctxbudget.errors import BudgetExceeded
from ctxbudget.formats import FormatName, Request, parse_request, render_request
from ctxbudget.kernel import SYSTEM, TOOLS
from ctxbudget.tokens import TokenCounter

__all__ = [
    "NOT_COMPRESSED",
    "STAGE_NAMES",
    "Call",
    "CompressionInfo",
    "Enforced",
    "FlowOptions",
    "effective_budget",
    "enforcement_flow",
]

Call: TypeAlias = ArchiveCall | SummarizeCall
Flow: TypeAlias = Generator[Call, str, Request | None]
Stage: TypeAlias = Callable[[Request, Pricer, int], Flow]

STAGE_NAMES: Final = ("turn_trim", "drop_oldest_tool_echoes", "summarize")


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
    modified), and a new body otherwise.
    """

    body: Mapping[str, Any]
    info: CompressionInfo
    estimate_before: int
    estimate_after: int


@dataclass(frozen=True, slots=True, kw_only=True)
class FlowOptions:
    """Everything ``enforcement_flow`` needs besides the body."""

    config: BudgetConfig
    counter: TokenCounter
    sink: EventSink
    hard_cap: int | None = None
    cost_pressure: bool = False
    cache_efficiency: float | None = None
    can_summarize: bool = False
    can_archive: bool = False


def effective_budget(config: BudgetConfig, hard_cap: int | None) -> int:
    """The budget, lowered to the model's hard cap when that is smaller."""
    if hard_cap is not None and hard_cap > 0:
        return min(config.max_input_tokens, hard_cap)
    return config.max_input_tokens


def enforcement_flow(
    body: Mapping[str, Any], format: FormatName, options: FlowOptions
) -> Generator[Call, str, Enforced]:
    """Bring ``body`` within budget, or raise ``BudgetExceeded``; see the module doc."""
    request = parse_request(body, format)
    pricer = Pricer(options.counter)
    before = pricer.segments(request).total
    budget = effective_budget(options.config, options.hard_cap)
    if not options.config.enabled or before <= budget:
        return Enforced(body, NOT_COMPRESSED, before, before)
    protected = protected_tokens(request, options.config.never_trim_headers, options.counter)
    _check_floor(request, pricer, budget, protected, options)
    if _cache_guard_skips(before, budget, options):
        return Enforced(body, NOT_COMPRESSED, before, before)
    _check_fixed_parts(request, pricer, budget, protected, options)
    outcome = yield from _run_stages(request, pricer, before, budget, protected, options)
    return outcome


def _check_floor(
    request: Request, pricer: Pricer, budget: int, protected: int, options: FlowOptions
) -> None:
    """Refuse at once when the never-trim sections and the pending turn alone overflow:
    no stage may touch either, so running them would only delay the refusal."""
    pending = pricer.turns(request.pending)
    if protected + pending > budget:
        segment, tokens = (PENDING, pending) if pending >= protected else (SYSTEM, protected)
        before = pricer.segments(request).total
        raise _refusal(before, budget, (), protected, segment, tokens, options.sink)


def _check_fixed_parts(
    request: Request, pricer: Pricer, budget: int, protected: int, options: FlowOptions
) -> None:
    """Refuse before any stage when the parts no stage shrinks (system prompt, tools,
    pending turn) already overflow; a summarizer would be paid for nothing."""
    segments = pricer.segments(request)
    fixed = {SYSTEM: segments.system, TOOLS: segments.tools, PENDING: segments.pending}
    if sum(fixed.values()) > budget:
        segment = max(fixed, key=lambda name: fixed[name])
        raise _refusal(segments.total, budget, (), protected, segment, fixed[segment], options.sink)


def _cache_guard_skips(estimated: int, budget: int, options: FlowOptions) -> bool:
    config = options.config
    overshoot = overshoot_ratio(estimated, budget)
    skip = should_skip_for_cache(
        options.cache_efficiency,
        overshoot,
        min_eff=config.cache_guard_min_eff,
        max_overshoot=config.cache_guard_max_overshoot,
        estimated=estimated,
        hard_cap=options.hard_cap,
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
    request: Request,
    pricer: Pricer,
    before: int,
    budget: int,
    protected: int,
    options: FlowOptions,
) -> Generator[Call, str, Enforced]:
    current, applied, tried = request, [], []
    for name, stage in _stages(options):
        tried.append(name)
        result = yield from stage(current, pricer, budget)
        if result is None:
            continue
        current = result
        applied.append(name)
        after = pricer.segments(current).total
        options.sink.emit(
            BudgetEvent(
                STAGE_APPLIED,
                f"{name}: about {after} tokens (budget {budget})",
                {"stage": name, "after_tokens": after, "budget_tokens": budget},
            )
        )
        if after <= budget:
            info = CompressionInfo(True, tuple(applied))
            return Enforced(render_request(current), info, before, after)
    segments = pricer.segments(current)
    segment, tokens = segments.largest()
    raise _refusal(segments.total, budget, tuple(tried), protected, segment, tokens, options.sink)


def _stages(options: FlowOptions) -> list[tuple[str, Stage]]:
    config = options.config
    rule = TrimRule(*config.trim_limits(options.cost_pressure))
    headers = frozenset(h.strip() for h in config.never_trim_headers)

    def trim(request: Request, pricer: Pricer, budget: int) -> Flow:
        return _without_calls(turn_trim(request, rule))

    def echoes(request: Request, pricer: Pricer, budget: int) -> Flow:
        return drop_oldest_tool_echoes(
            request, pricer, budget, keep=config.tool_outputs_kept, archive=options.can_archive
        )

    def summary(request: Request, pricer: Pricer, budget: int) -> Flow:
        return summarize(
            request,
            pricer,
            budget,
            keep_recent=config.summary_keeps_recent_turns,
            never_trim_headers=headers,
            archive=options.can_archive,
            cost_pressure=options.cost_pressure,
        )

    stages: list[tuple[str, Stage]] = [(STAGE_NAMES[0], trim), (STAGE_NAMES[1], echoes)]
    if options.can_summarize and config.summarize:
        stages.append((STAGE_NAMES[2], summary))
    return stages


def _without_calls(result: Request | None) -> Flow:
    """A pure stage's result as a flow that asks the host for nothing."""
    return result
    yield  # unreachable; its presence makes this function a generator


def _refusal(
    estimated: int,
    budget: int,
    tried: tuple[str, ...],
    protected: int,
    segment: str,
    segment_tokens: int,
    sink: EventSink,
) -> BudgetExceeded:
    error = BudgetExceeded(
        estimated_tokens=estimated,
        budget_tokens=budget,
        stages_tried=tried,
        protected_tokens=protected,
        largest_segment=segment,
        largest_segment_tokens=segment_tokens,
    )
    sink.emit(
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
