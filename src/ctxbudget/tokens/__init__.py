"""Token counting: counters, and pricing of messages and tools on top of them."""

from ctxbudget.errors import MissingExtraError, ProfileError, UnknownCounterError
from ctxbudget.tokens.base import TokenCounter
from ctxbudget.tokens.caching import CachingCounter
from ctxbudget.tokens.calibrated import (
    PROFILE_NAMES,
    CalibratedCounter,
    Profile,
    builtin_profile,
    load_profile,
    save_profile,
)
from ctxbudget.tokens.defaults import central_counter, default_counter
from ctxbudget.tokens.exact import (
    BpeOpenAICounter,
    HFTokenizerCounter,
    TiktokenCounter,
    TokieCounter,
    tiktoken_loads_offline,
)
from ctxbudget.tokens.features import FEATURE_NAMES, text_features
from ctxbudget.tokens.fitting import fit_profile, fit_profile_from_usage
from ctxbudget.tokens.heuristics import Chars4Counter, CJKCounter
from ctxbudget.tokens.pricing import (
    BLOCK_OVERHEAD,
    CHAT_BLOCK_OVERHEAD,
    CHAT_MESSAGE_OVERHEAD,
    DEFAULT_OVERHEADS,
    IMAGE_TOKENS,
    MESSAGE_OVERHEAD,
    SEED_OVERHEADS,
    Overheads,
    json_text,
    price_block,
    price_content,
    price_message,
    price_tools,
)
from ctxbudget.tokens.registry import (
    MODEL_FAMILIES,
    SPEC_FORMS,
    ModelFamily,
    get_counter,
    model_counter,
    model_counter_spec,
    model_family,
)
from ctxbudget.tokens.vocabularies import VOCABULARIES, exact_available, exact_counter

__all__ = [
    "BLOCK_OVERHEAD",
    "CHAT_BLOCK_OVERHEAD",
    "CHAT_MESSAGE_OVERHEAD",
    "DEFAULT_OVERHEADS",
    "FEATURE_NAMES",
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "MODEL_FAMILIES",
    "PROFILE_NAMES",
    "SEED_OVERHEADS",
    "SPEC_FORMS",
    "VOCABULARIES",
    "BpeOpenAICounter",
    "CJKCounter",
    "CachingCounter",
    "CalibratedCounter",
    "Chars4Counter",
    "HFTokenizerCounter",
    "MissingExtraError",
    "ModelFamily",
    "Overheads",
    "Profile",
    "ProfileError",
    "TiktokenCounter",
    "TokenCounter",
    "TokieCounter",
    "UnknownCounterError",
    "builtin_profile",
    "central_counter",
    "default_counter",
    "exact_available",
    "exact_counter",
    "fit_profile",
    "fit_profile_from_usage",
    "get_counter",
    "json_text",
    "load_profile",
    "model_counter",
    "model_counter_spec",
    "model_family",
    "price_block",
    "price_content",
    "price_message",
    "price_tools",
    "save_profile",
    "text_features",
    "tiktoken_loads_offline",
]
