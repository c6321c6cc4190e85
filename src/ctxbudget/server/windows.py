"""Context windows by model name, for the enforcement cap: looked up once per name."""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Final

from ctxbudget.errors import CtxBudgetError

__all__ = ["ModelWindows"]

_log = logging.getLogger("ctxbudget.server")

MAX_MODELS: Final = 512
"""Model names remembered (names are short: the memo stays within a few tens of KB)."""


class ModelWindows:
    """``window(model)``: the model's context window from ``ctxbudget.models``, or 0
    when the model is unknown (or the ``models`` extra is missing): then only the
    configured budget holds the request, as the enforcement docs say for ``window=0``.

    The answers are kept for the ``MAX_MODELS`` most recent names: an unknown name
    costs a search for close matches, which no call should pay twice.
    """

    def __init__(self, max_models: int = MAX_MODELS) -> None:
        self._max = max_models
        self._windows: OrderedDict[str, int] = OrderedDict()

    def window(self, model: object) -> int:
        """The context window of ``model`` (0: unknown)."""
        if not isinstance(model, str) or not model:
            return 0
        known = self._windows.get(model)
        if known is not None:
            self._windows.move_to_end(model)
            return known
        window = _look_up(model)
        self._windows[model] = window
        while len(self._windows) > self._max:
            self._windows.popitem(last=False)
        return window


def _look_up(model: str) -> int:
    try:
        from ctxbudget.models import model_info

        info = model_info(model)
    except (CtxBudgetError, ImportError) as exc:
        code = getattr(exc, "code", type(exc).__name__)
        _log.info("ctxbudget proxy: no context window for model %r [%s]", model, code)
        return 0
    return int(info.context_window or 0)
