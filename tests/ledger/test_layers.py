"""Layering: the ledger stands on kernel, errors and content only; the meter adds tokens."""

from __future__ import annotations

import ast
import importlib
import pathlib
import sys

import pytest

BELOW_LEDGER = ("ctxbudget.ledger", "ctxbudget.errors", "ctxbudget.kernel", "ctxbudget.content")
ALLOWED = {
    "ctxbudget.ledger": BELOW_LEDGER,
    "ctxbudget.meter": (*BELOW_LEDGER, "ctxbudget.meter", "ctxbudget.tokens"),
}


def imported_modules(path: pathlib.Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_one_way(package: str) -> None:
    """No module of the package imports a layer above it."""
    root = pathlib.Path(importlib.import_module(package).__file__ or "").parent
    for path in root.glob("*.py"):
        for name in imported_modules(path):
            top = name.split(".")[0]
            allowed = top in sys.stdlib_module_names or top == "psycopg"
            assert allowed or name.startswith(ALLOWED[package]), f"{path.name} imports {name}"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_public_names_exist(package: str) -> None:
    """``__all__`` has no duplicates and every name resolves."""
    module = importlib.import_module(package)
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert hasattr(module, name), name
