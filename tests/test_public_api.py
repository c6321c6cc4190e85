"""The curated public API: sorted, complete, documented."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = [
    "ctxbudget",
    "ctxbudget.content",
    "ctxbudget.enforce",
    "ctxbudget.formats",
    "ctxbudget.kernel",
    "ctxbudget.ledger",
    "ctxbudget.meter",
    "ctxbudget.testing",
    "ctxbudget.tokens",
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
