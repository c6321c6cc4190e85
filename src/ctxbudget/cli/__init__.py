"""The ``ctxbudget`` command: a thin shell over the public API."""

from ctxbudget.cli.app import main

__all__ = [
    "main",
]
