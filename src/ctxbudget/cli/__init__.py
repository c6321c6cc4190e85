"""The ``ctxbudget`` command: a thin shell over the public API."""

from ctxbudget.cli.main import main

__all__ = [
    "main",
]
