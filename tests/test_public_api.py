"""The curated public API: sorted, complete, documented."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "ctxbudget",
    "ctxbudget.kernel",
    "ctxbudget.tokens",
    "ctxbudget.content",
    "ctxbudget.testing",
]


def isort_style(name: str) -> tuple[int, str]:
    """Constants, then classes, then the rest: the order ruff's RUF022 keeps."""
    if name.isupper() or (name.upper() == name and "_" in name):
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=isort_style)
    assert len(set(exported)) == len(exported)
    for attr in exported:
        assert hasattr(module, attr), attr


def test_kernel_imports_only_the_standard_library() -> None:
    import ast
    import pathlib
    import sys

    import ctxbudget.kernel

    root = pathlib.Path(ctxbudget.kernel.__file__).parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for mod in names:
                top = mod.split(".")[0]
                allowed = top in sys.stdlib_module_names or mod.startswith(
                    ("ctxbudget.kernel", "ctxbudget.errors")
                )
                assert allowed, f"{path.name} imports {mod}"
