"""The public API: curated, complete, documented, and no name hides its own module.

Like httpx's ``test_exported_members.py``: every public module says what it
exports in ``__all__``, exports everything public it defines, and documents it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import ctxbudget


def isort_style(name: str) -> tuple[int, str]:
    """Constants, then classes, then the rest: the order ruff's RUF022 keeps."""
    if name.isupper() or (name.upper() == name and "_" in name):
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


def _all_modules() -> list[str]:
    names = ["ctxbudget"]
    for info in pkgutil.walk_packages(ctxbudget.__path__, "ctxbudget."):
        names.append(info.name)
    return sorted(names)


MODULES = _all_modules()
PUBLIC = [name for name in MODULES if not any(p.startswith("_") for p in name.split("."))]
PACKAGES = [name for name in MODULES if hasattr(importlib.import_module(name), "__path__")]


def _defined_here(module: ModuleType, obj: object) -> bool:
    return getattr(obj, "__module__", None) == module.__name__


def test_the_walk_sees_every_layer() -> None:
    """The tests below can fail: they walk the real packages."""
    for layer in ("enforce", "formats", "kernel", "ledger", "meter", "tokens", "summaries"):
        assert f"ctxbudget.{layer}" in PACKAGES


@pytest.mark.parametrize("name", PACKAGES)
def test_no_name_hides_its_own_submodule(name: str) -> None:
    """``ctxbudget.enforce`` is the package, ``ctxbudget.kernel.apply`` nothing but a module."""
    package = importlib.import_module(name)
    for info in pkgutil.iter_modules(package.__path__):
        submodule = importlib.import_module(f"{name}.{info.name}")
        if hasattr(package, info.name):
            assert getattr(package, info.name) is submodule, (
                f"{name}.{info.name} is {getattr(package, info.name)!r}, "
                f"which hides the module {submodule.__name__}"
            )


@pytest.mark.parametrize("name", PUBLIC)
def test_all_is_sorted_importable_and_complete(name: str) -> None:
    """Every public module lists its exports; every export exists; nothing public is left out."""
    module = importlib.import_module(name)
    package = hasattr(module, "__path__")
    public = [
        attr
        for attr, obj in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(obj, ModuleType)
        and (
            _defined_here(module, obj)
            or (
                package
                and callable(obj)
                and str(getattr(obj, "__module__", "")).startswith("ctxbudget")
            )
        )
    ]
    if not public and not hasattr(module, "__all__"):
        return  # a package of data files exports nothing
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    exported = list(module.__all__)
    assert exported == sorted(exported, key=isort_style), f"{name}.__all__ is not sorted"
    assert len(set(exported)) == len(exported)
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names {attr}, which does not exist"
    for attr in public:
        assert attr in exported, f"{name}.{attr} is public but not in __all__"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_export_is_documented(name: str) -> None:
    """Modules, classes and functions a user can reach say what they are for."""
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no docstring"
    for attr in getattr(module, "__all__", ()):
        obj = getattr(module, attr)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), f"{name}.{attr} has no docstring"


TOP_LEVEL = {
    # the request path
    "enforce_budget",
    "enforce_budget_async",
    "BudgetConfig",
    "load_budget_config",
    "Enforced",
    "parse_request",
    "render_request",
    "detect_format",
    "meter_request",
    "Request",
    "RequestCache",
    "Message",
    # counting
    "TokenCounter",
    "default_counter",
    "get_counter",
    # the ledger and the replay meter
    "Ledger",
    "Event",
    "open_ledger",
    "open_async_ledger",
    "TokenMeter",
    "Measurement",
    # extension points
    "Summarizer",
    "AsyncSummarizer",
    "SummaryRequest",
    "Archive",
    "AsyncArchive",
    "Original",
    "EventSink",
    "BudgetEvent",
    # errors
    "CtxBudgetError",
    "BudgetExceeded",
    "FormatError",
    "ConfigError",
    "LedgerError",
    "MissingExtraError",
    "__version__",
}


def test_the_top_level_is_the_request_path_and_meter_vocabulary() -> None:
    """About 30 names; the kernel's item-level API stays in ``ctxbudget.kernel``."""
    assert set(ctxbudget.__all__) == TOP_LEVEL
    assert "build_plan" not in ctxbudget.__all__
    assert ctxbudget.enforce.enforce_budget is ctxbudget.enforce_budget
    assert isinstance(ctxbudget.enforce, ModuleType)
    assert ctxbudget.enforce.BudgetConfig is ctxbudget.BudgetConfig
