"""``model_info(name)``: a model's counter, window, output limit and prices, by name.

Windows and prices come from ``genai-prices`` (extra ``models``), pydantic's maintained
database, read from the copy inside the installed package: no network, ever (its
optional background updater is never started). The tokenizer comes from
``ctxbudget.tokens``' model families, the output limit from ``output_limits``.
"""

from __future__ import annotations

import difflib
import importlib.metadata
from datetime import UTC, datetime
from decimal import Decimal
from types import ModuleType
from typing import Any

from ctxbudget.errors import UnknownModelError
from ctxbudget.models.info import ModelInfo, PriceTier
from ctxbudget.models.output_limits import MAX_OUTPUT_TOKENS
from ctxbudget.tokens.exact import import_extra
from ctxbudget.tokens.registry import model_counter_spec

__all__ = ["known_models", "model_info"]


def model_info(name: str, *, at: datetime | None = None) -> ModelInfo:
    """What is known about the model ``name`` (prices as of ``at``, by default now).

    ``name`` is an API model name, optionally with a provider prefix
    (``anthropic/claude-sonnet-4-5``). Raises ``UnknownModelError`` (with close matches)
    when the database does not know it, ``MissingExtraError`` without genai-prices.
    """
    snapshot = _database().data_snapshot.get_snapshot()
    provider_id, reference = _split_provider(snapshot, name.strip())
    try:
        provider, model = snapshot.find_provider_model(reference, None, provider_id, None)
    except LookupError:
        raise UnknownModelError(
            name, source=_source(), suggestions=_close_matches(snapshot, reference)
        ) from None
    prices = model.get_prices(at or datetime.now(tz=UTC))
    return ModelInfo(
        name=model.id,
        counter_spec=model_counter_spec(model.id),
        context_window=model.context_window,
        max_output_tokens=MAX_OUTPUT_TOKENS.get(model.id),
        price_tiers=_tiers(prices.input_mtok, prices.output_mtok),
        provider=provider.id,
    )


def known_models() -> tuple[str, ...]:
    """Every model id the database knows, sorted, without duplicates."""
    snapshot = _database().data_snapshot.get_snapshot()
    return tuple(sorted({m.id for p in snapshot.providers for m in p.models}))


def _database() -> ModuleType:
    return import_extra("genai_prices", feature="ctxbudget.models", extra="models")


def _source() -> str:
    return f"genai-prices {importlib.metadata.version('genai-prices')}"


def _split_provider(snapshot: Any, name: str) -> tuple[str | None, str]:
    """``provider/model`` -> (provider id, model) when the prefix names a known provider."""
    prefix, sep, rest = name.partition("/")
    if sep and rest:
        from_db = _database().data_snapshot.find_provider_by_id(snapshot.providers, prefix)
        if from_db is not None:
            return from_db.id, rest
    return None, name


def _close_matches(snapshot: Any, reference: str) -> list[str]:
    # A model the database lists only under some providers (an OpenRouter-only id) is
    # found with its provider prefix; suggesting the bare name back would be no help.
    holders = [p.id for p in snapshot.providers if any(m.id == reference for m in p.models)]
    if holders:
        return [f"{provider}/{reference}" for provider in holders[:3]]
    ids = sorted({m.id for p in snapshot.providers for m in p.models})
    return difflib.get_close_matches(reference.lower(), ids, n=3, cutoff=0.6)


def _tiers(input_price: Any, output_price: Any) -> tuple[PriceTier, ...]:
    """Merge the input and output price ladders into one ladder of ``PriceTier``."""
    starts = sorted({0} | set(_starts(input_price)) | set(_starts(output_price)))
    if input_price is None and output_price is None:
        return ()
    return tuple(
        PriceTier(start, _rate_above(input_price, start), _rate_above(output_price, start))
        for start in starts
    )


def _starts(price: Any) -> list[int]:
    return [tier.start for tier in getattr(price, "tiers", ())]


def _rate_above(price: Any, start: int) -> Decimal | None:
    """The rate that applies just above ``start`` input tokens."""
    if price is None or isinstance(price, Decimal):
        return price
    rate: Decimal = price.base
    for tier in price.tiers:  # sorted by start
        if start >= tier.start:
            rate = tier.price
    return rate
