"""What every stage is: a name and one ``run(request, context)`` signature.

A stage gets the request as the earlier stages left it and a ``StageContext``
(the pricer, the budget, the config and what the host plugged in); it returns a
smaller request or ``None`` ("I cannot help more"). Inside a stage the least
lossy change goes first and the stage stops as soon as the request fits.

Stages are generators: where a stage needs the host (store an original, write a
summary) it *yields* an ``ArchiveCall`` or ``SummarizeCall`` and is sent the
answer, so one stage serves ``enforce_budget`` and ``enforce_budget_async`` alike.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Protocol, TypeAlias

from ctxbudget.archives import Original
from ctxbudget.enforce.config import BudgetConfig
from ctxbudget.enforce.estimate import Pricer
from ctxbudget.formats import Request, RequestCache
from ctxbudget.summaries import SummaryRequest

__all__ = [
    "ArchiveCall",
    "Call",
    "Stage",
    "StageContext",
    "StageFlow",
    "SummarizeCall",
    "no_calls",
]


@dataclass(frozen=True, slots=True)
class ArchiveCall:
    """A stage asks its driver to archive ``original`` and send back the locator."""

    original: Original


@dataclass(frozen=True, slots=True)
class SummarizeCall:
    """A stage asks its driver to summarize and send back the summary text."""

    request: SummaryRequest


Call: TypeAlias = ArchiveCall | SummarizeCall
StageFlow: TypeAlias = Generator[Call, str, Request | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class StageContext:
    """What a stage may use besides the request.

    ``budget``: the tokens the request must fit in. ``cost_pressure``: trim
    harder. ``can_archive`` / ``can_summarize``: the host gave an archive / a
    summarizer. ``cache``: where work is reused across requests.
    """

    pricer: Pricer
    budget: int
    config: BudgetConfig
    cache: RequestCache
    cost_pressure: bool = False
    can_archive: bool = False
    can_summarize: bool = False

    def fits(self, request: Request) -> bool:
        """True when ``request`` is within the budget."""
        return self.pricer.segments(request).total <= self.budget


class Stage(Protocol):
    """One step of the pipeline, from least to most lossy."""

    @property
    def name(self) -> str:
        """The name events and ``CompressionInfo.stages`` use."""
        ...

    def available(self, context: StageContext) -> bool:
        """False when the stage cannot run at all (no summarizer, turned off)."""
        ...

    def run(self, request: Request, context: StageContext) -> StageFlow:
        """A smaller request, or ``None`` when the stage cannot help more."""
        ...


def no_calls(result: Request | None) -> StageFlow:
    """A stage that needs nothing from the host, as a flow."""
    return result
    yield  # unreachable; its presence makes this function a generator
