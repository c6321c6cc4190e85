"""Entry point and command group."""

from __future__ import annotations

from typing import Any

import click

from ctxbudget.cli.commands import (
    archive_show,
    count,
    enforce_command,
    ledger,
    measure,
    meter,
)
from ctxbudget.cli.demo import demo
from ctxbudget.errors import BudgetExceeded, CtxBudgetError

__all__ = ["main"]

EXIT_ERROR = 1
"""Exit status of a ctxbudget error (bad input, unreachable store …)."""
EXIT_REFUSED = 2
"""Exit status when a prompt cannot be made to fit its budget."""


class _Group(click.Group):
    """Turns ctxbudget errors into one clear line and an exit status, not a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CtxBudgetError as error:
            click.echo(f"ctxbudget: error [{error.code}]: {error}", err=True)
            ctx.exit(EXIT_REFUSED if isinstance(error, BudgetExceeded) else EXIT_ERROR)


@click.group(cls=_Group)
@click.version_option(package_name="ctxbudget")
def main() -> None:
    """Keep an LLM agent's prompt inside its context window and its budget."""


for command in (demo, count, meter, enforce_command, archive_show, ledger, measure):
    main.add_command(command)
