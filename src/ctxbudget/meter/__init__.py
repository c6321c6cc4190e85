"""The replay token meter: folds a session's ledger into context pressure.

``TokenMeter(ledger).measure(session_id)`` says how many tokens the session's next
request takes, which log revision that answer has seen, and what each node of
the model-visible surface costs.
"""

from ctxbudget.errors import ReplayError
from ctxbudget.meter.anchor_rule import (
    DEFAULT_ANCHOR_RULE,
    MIN_PLAUSIBLE_USAGE_RATIO,
    SEED_ANCHOR_RULE,
    AnchorRule,
    UsageVerdict,
)
from ctxbudget.meter.fold_cache import DEFAULT_FOLD_CACHE_BYTES
from ctxbudget.meter.headers import RequestHeader, canonical_header, headers_equal
from ctxbudget.meter.history import CallPrediction
from ctxbudget.meter.log_check import LogCheck, LogProblem, check_session
from ctxbudget.meter.measurement import Baseline, Measurement, Usage
from ctxbudget.meter.nodes import Node, NodeVector
from ctxbudget.meter.token_meter import DEFAULT_CONTEXT_WINDOW, TokenMeter

__all__ = [
    "DEFAULT_ANCHOR_RULE",
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_FOLD_CACHE_BYTES",
    "MIN_PLAUSIBLE_USAGE_RATIO",
    "SEED_ANCHOR_RULE",
    "AnchorRule",
    "Baseline",
    "CallPrediction",
    "LogCheck",
    "LogProblem",
    "Measurement",
    "Node",
    "NodeVector",
    "ReplayError",
    "RequestHeader",
    "TokenMeter",
    "Usage",
    "UsageVerdict",
    "canonical_header",
    "check_session",
    "headers_equal",
]
