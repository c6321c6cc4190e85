"""The ``ctxbudget`` command: a thin shell over the public API (docs/cli.md)."""

from ctxbudget.cli.app import main
from ctxbudget.cli.exit_codes import ExitCode

__all__ = ["ExitCode", "main"]
