"""The ``ctxbudget`` command group: every error becomes one line and an exit status.

A command raises; this group decides how it looks. ``BudgetExceeded`` exits
``ExitCode.REFUSED``, any other ``CtxBudgetError`` or a host ``OSError`` exits
``ExitCode.ERROR`` with the error's code, click's usage errors keep their own
status (``ExitCode.USAGE``). Nothing reaches the user as a traceback unless
``CTXBUDGET_DEBUG=1`` asks for one.
"""

from __future__ import annotations

import errno
import os
from typing import Any, NoReturn

import click

from ctxbudget.cli.archive import archive_show
from ctxbudget.cli.context import context, context_alias
from ctxbudget.cli.counting import count
from ctxbudget.cli.demo import demo
from ctxbudget.cli.exit_codes import ExitCode
from ctxbudget.cli.fit import fit, fit_alias
from ctxbudget.cli.ledger import ledger, measure_alias
from ctxbudget.cli.messages import error_line
from ctxbudget.cli.serve import serve
from ctxbudget.cli.sessions import session
from ctxbudget.errors import BudgetExceeded, CtxBudgetError

__all__ = ["DEBUG_ENV", "main"]

DEBUG_ENV = "CTXBUDGET_DEBUG"
"""Set to 1 to let unexpected exceptions through with their traceback."""


class _Group(click.Group):
    """Turns every error a command raises into one clear line and a documented status."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except BudgetExceeded as refusal:
            _fail(refusal.code, str(refusal), ExitCode.REFUSED)
        except CtxBudgetError as error:
            _fail(error.code, str(error), ExitCode.ERROR)
        except OSError as error:
            _fail(_os_code(error), _os_message(error), ExitCode.ERROR)
        except Exception as error:
            if os.environ.get(DEBUG_ENV) == "1":
                raise
            _fail(
                "internal_error",
                f"{type(error).__name__}: {error}; this is a bug in ctxbudget, please report it "
                f"(run again with {DEBUG_ENV}=1 to see where it happened)",
                ExitCode.ERROR,
            )


def _fail(code: str, message: str, status: ExitCode) -> NoReturn:
    click.echo(error_line(code, message), err=True)
    raise click.exceptions.Exit(int(status))


def _os_code(error: OSError) -> str:
    name = errno.errorcode.get(error.errno or 0)
    return f"os_error:{name}" if name else "os_error"


def _os_message(error: OSError) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}"


@click.group(cls=_Group)
@click.version_option(package_name="ctxbudget")
def main() -> None:
    """Keep an LLM agent's prompt inside its context window and its budget.

    Exit status: 0 done, 1 error, 2 bad usage, 3 refused (the prompt cannot fit).

    Older names still work: meter (context), enforce (fit), measure (session measure).
    """


for _command in (demo, count, context, fit, session, ledger, archive_show, serve):
    main.add_command(_command)
for _alias in (context_alias, fit_alias, measure_alias):
    main.add_command(_alias)
