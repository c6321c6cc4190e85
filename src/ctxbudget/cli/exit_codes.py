"""The exit statuses of the ``ctxbudget`` command, one meaning each (docs/cli.md)."""

from __future__ import annotations

import enum

__all__ = ["ExitCode"]


class ExitCode(enum.IntEnum):
    """What a ``ctxbudget`` exit status means; scripts can rely on these values."""

    DONE = 0
    """The command did what it was asked."""
    ERROR = 1
    """A ctxbudget error: a bad file, bad JSON, an unknown format, an unreachable ledger ..."""
    USAGE = 2
    """The command line itself is wrong: a missing argument, an unknown option (click's own)."""
    REFUSED = 3
    """The prompt cannot be made to fit its budget (``BudgetExceeded``); nothing was written."""
