"""Models by name: tokenizer (counter spec), context window, maximum output, and input
price tiers, for budgets and cost pressure (docs/models.md).

``model_info("claude-sonnet-4-5")`` gives a ``ModelInfo``; ``hard_cap(info)`` the input
room left after the reply's reserve; ``near_price_boundary(info, tokens)`` the price
cliff a request is about to cross. Unknown names raise ``UnknownModelError``.
"""

from ctxbudget.errors import ModelFactMissingError, UnknownModelError
from ctxbudget.models.catalog import known_models, model_info
from ctxbudget.models.info import (
    ModelInfo,
    PriceTier,
    hard_cap,
    input_cost,
    near_price_boundary,
    next_price_tier,
    price_tier,
)
from ctxbudget.models.output_limits import MAX_OUTPUT_TOKENS

__all__ = [
    "MAX_OUTPUT_TOKENS",
    "ModelFactMissingError",
    "ModelInfo",
    "PriceTier",
    "UnknownModelError",
    "hard_cap",
    "input_cost",
    "known_models",
    "model_info",
    "near_price_boundary",
    "next_price_tier",
    "price_tier",
]
