"""The exception tree: one root, stable codes, messages that say what to do."""

from __future__ import annotations

import inspect

import ctxbudget.errors as errors_module
from ctxbudget.errors import CtxBudgetError, MissingExtraError


def all_error_classes() -> list[type[CtxBudgetError]]:
    return [
        obj
        for _, obj in inspect.getmembers(errors_module, inspect.isclass)
        if issubclass(obj, CtxBudgetError)
    ]


def test_every_error_derives_from_the_root_and_has_a_unique_code() -> None:
    classes = all_error_classes()
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes))
    assert all(issubclass(cls, CtxBudgetError) for cls in classes)


def test_tree_is_drawn_in_module_docstring() -> None:
    doc = errors_module.__doc__ or ""
    for cls in all_error_classes():
        assert cls.__name__ in doc, cls.__name__
        assert cls.code in doc, cls.code


def test_missing_extra_names_the_extra_and_is_an_import_error() -> None:
    err = MissingExtraError(feature="TiktokenCounter", extra="tiktoken", module="tiktoken")
    assert isinstance(err, ImportError)
    assert "pip install 'ctxbudget[tiktoken]'" in str(err)
    assert err.code == "missing_extra"


def test_budget_exceeded_suggests_a_summarizer_only_when_none_ran() -> None:
    from ctxbudget.errors import BudgetExceeded

    common = {
        "estimated_tokens": 900,
        "budget_tokens": 500,
        "protected_tokens": 0,
        "largest_segment": "conversation",
        "largest_segment_tokens": 700,
    }
    without = BudgetExceeded(stages_tried=("turn_trim",), **common)
    assert "give a summarizer" in str(without)
    assert "conversation segment with about 700 tokens" in str(without)
    ran = BudgetExceeded(stages_tried=("turn_trim", "summarize"), **common)
    assert "give a summarizer" not in str(ran)
    assert ran.code == "budget_exceeded"
