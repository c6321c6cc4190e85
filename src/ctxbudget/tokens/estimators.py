"""The shipped calibrated profiles as plain ``text -> int`` functions.

For tools that take an importable callable rather than a counter object, e.g.
``../shared/eval/accuracy.py CORPUS --estimator ctxbudget.tokens.estimators:calibrated_generic``.
"""

from __future__ import annotations

from ctxbudget.tokens.calibrated import CalibratedCounter

__all__ = [
    "calibrated_cl100k",
    "calibrated_deepseek_v4",
    "calibrated_generic",
    "calibrated_qwen3",
]

calibrated_cl100k = CalibratedCounter("cl100k").count
calibrated_deepseek_v4 = CalibratedCounter("deepseek-v4").count
calibrated_generic = CalibratedCounter("generic").count
calibrated_qwen3 = CalibratedCounter("qwen3").count
