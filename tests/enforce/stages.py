"""Running one stage by hand: a ``StageContext`` over the seed's counter and a fresh cache."""

from __future__ import annotations

from typing import Any

from ctxbudget.enforce import BudgetConfig, StageContext
from ctxbudget.enforce.estimate import Pricer
from ctxbudget.formats import RequestCache
from ctxbudget.tokens import CJKCounter, TokenCounter


def stage_context(
    budget: int,
    *,
    counter: TokenCounter | None = None,
    cost_pressure: bool = False,
    can_archive: bool = False,
    can_summarize: bool = False,
    **config: Any,
) -> StageContext:
    cache = RequestCache()
    return StageContext(
        pricer=Pricer(counter if counter is not None else CJKCounter(), cache),
        budget=budget,
        config=BudgetConfig(max_input_tokens=max(budget, 1), **config),
        cache=cache,
        cost_pressure=cost_pressure,
        can_archive=can_archive,
        can_summarize=can_summarize,
    )
