"""What ctxbudget knows about a model, and the questions budgets ask of it.

Values only: ``ctxbudget.models.catalog`` fills them from the model database.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ctxbudget.errors import ConfigError, ModelFactMissingError

__all__ = [
    "ModelInfo",
    "PriceTier",
    "hard_cap",
    "input_cost",
    "near_price_boundary",
    "next_price_tier",
    "price_tier",
]

TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are in US dollars per million tokens."""


@dataclass(frozen=True, slots=True)
class PriceTier:
    """The prices of requests with more than ``above_tokens`` input tokens.

    Providers price by cliff, not by bracket: a request over a tier's threshold pays the
    tier's rate on *all* its tokens (Anthropic's long-context price doubles the input
    rate of the whole request above 200,000 input tokens). US dollars per million tokens;
    ``None`` where the database gives no price.
    """

    above_tokens: int
    input_usd_per_mtok: Decimal | None
    output_usd_per_mtok: Decimal | None


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A model by name: its counter, limits and prices.

    ``name`` is the database's id for the model (``claude-sonnet-4-5`` for
    ``claude-sonnet-4-5-20250929``); ``counter_spec`` is the ``get_counter`` spec of the
    best counter available offline for it; ``context_window`` and ``max_output_tokens``
    are ``None`` where no source gives them (never guessed); ``price_tiers`` run from the
    base tier (``above_tokens == 0``) upwards, empty when no prices are known.
    """

    name: str
    counter_spec: str
    context_window: int | None
    max_output_tokens: int | None
    price_tiers: tuple[PriceTier, ...]
    provider: str = ""


def hard_cap(info: ModelInfo, output_reserve: int | None = None) -> int:
    """The most input tokens a request may hold: the context window minus the tokens kept
    for the reply (``output_reserve``, by default the model's maximum output).

    Raises ``ModelFactMissingError`` when the window (or, with no reserve given, the
    maximum output) is not known, and ``ConfigError`` when the reserve leaves no room.
    """
    if info.context_window is None:
        raise ModelFactMissingError(info.name, "context window", "give the window explicitly")
    reserve = info.max_output_tokens if output_reserve is None else output_reserve
    if reserve is None:
        raise ModelFactMissingError(
            info.name, "maximum output", "give the output reserve explicitly"
        )
    if reserve < 0 or reserve >= info.context_window:
        raise ConfigError(
            f"an output reserve of {reserve} tokens leaves no input room in the "
            f"{info.context_window}-token window of {info.name!r}; give a reserve from 0 "
            f"to {info.context_window - 1}"
        )
    return info.context_window - reserve


def price_tier(info: ModelInfo, input_tokens: int) -> PriceTier | None:
    """The tier a request of ``input_tokens`` input tokens is priced at (``None`` when the
    model has no known prices)."""
    applicable = [tier for tier in info.price_tiers if input_tokens > tier.above_tokens]
    return applicable[-1] if applicable else (info.price_tiers[0] if info.price_tiers else None)


def next_price_tier(info: ModelInfo, input_tokens: int) -> PriceTier | None:
    """The first dearer tier a request would reach by growing past ``input_tokens``
    input tokens, or ``None`` when it is in the top tier already."""
    return next(
        (t for t in info.price_tiers if t.above_tokens >= input_tokens and t.above_tokens > 0),
        None,
    )


def near_price_boundary(
    info: ModelInfo, input_tokens: int, *, within: float = 0.10
) -> PriceTier | None:
    """The next tier when ``input_tokens`` is within ``within`` (a fraction of the tier's
    threshold) below it: the cost-pressure signal for a price cliff (docs/models.md).

    E.g. Claude Sonnet 4.5 at 185,000 input tokens returns its tier above 200,000 (the
    whole request would cost twice as much per input token); at 120,000, ``None``.
    """
    if not 0 <= within < 1:
        raise ConfigError(f"within must be a fraction from 0 to below 1, not {within!r}")
    upcoming = next_price_tier(info, input_tokens)
    if upcoming is None:
        return None
    return upcoming if input_tokens >= upcoming.above_tokens * (1 - within) else None


def input_cost(info: ModelInfo, input_tokens: int) -> Decimal | None:
    """US dollars for ``input_tokens`` uncached input tokens at their tier, or ``None``
    when the database has no input price."""
    tier = price_tier(info, input_tokens)
    if tier is None or tier.input_usd_per_mtok is None:
        return None
    return tier.input_usd_per_mtok * input_tokens / TOKENS_PER_PRICE_UNIT
