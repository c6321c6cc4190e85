"""``ctxbudget serve``: the budget proxy and JSON service (extra ``server``)."""

from __future__ import annotations

import os

import click

from ctxbudget.cli.exit_codes import ExitCode
from ctxbudget.cli.inputs import read_config_file
from ctxbudget.cli.options import LEDGER_ENV
from ctxbudget.enforce import RANGES
from ctxbudget.errors import MissingExtraError
from ctxbudget.ledger import open_ledger

__all__ = ["serve"]


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65_535),
    default=8787,
    show_default=True,
    help="Port to listen on.",
)
@click.option(
    "--ledger",
    "ledger_url",
    default=None,
    envvar=LEDGER_ENV,
    metavar="URL",
    help=f"Ledger URL (env {LEDGER_ENV}; default: the SQLite file under ./.ctxbudget/).",
)
@click.option(
    "--config",
    "config_path",
    default=None,
    metavar="FILE",
    help="Agent TOML: [budget], [upstream].",
)
@click.option(
    "--max-input",
    type=click.IntRange(min=0, max=int(RANGES["max_input_tokens"].high)),
    default=None,
    metavar="N",
    help="max_input_tokens, 0 for no budget (overrides --config).",
)
@click.option(
    "--upstream-openai", default=None, help="Base URL for /v1/chat/completions, /v1/responses."
)
@click.option("--upstream-anthropic", default=None, help="Base URL for /v1/messages.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes.",
)
def serve(
    host: str,
    port: int,
    ledger_url: str | None,
    config_path: str | None,
    max_input: int | None,
    upstream_openai: str | None,
    upstream_anthropic: str | None,
    workers: int,
) -> None:
    """Run the budget proxy: point an agent's base URL here.

    Tokens come from the environment: CTXBUDGET_API_TOKEN guards the service
    endpoints, CTXBUDGET_PROXY_TOKEN the proxy routes (X-Ctxbudget-Token).
    """
    try:
        import uvicorn

        from ctxbudget.server.settings import load_server_settings, settings_to_environment
    except ImportError as missing:
        raise MissingExtraError(
            feature="ctxbudget serve", extra="server", module="uvicorn"
        ) from missing
    if config_path is not None:
        read_config_file(config_path)  # a missing, unreadable or non-TOML file: one line
    settings = load_server_settings(
        config_path,
        max_input_tokens=max_input,
        ledger_url=ledger_url,
        upstreams={"openai": upstream_openai, "anthropic": upstream_anthropic},
    )
    # Open the ledger once here, so a bad URL or a store that is down is one error line
    # (exit 1) before the workers start, not a traceback in each worker's startup.
    with open_ledger(settings.ledger_url):
        pass
    # Workers are separate processes: they read the settings from the environment.
    os.environ.update(settings_to_environment(settings))
    click.echo(
        f"ctxbudget serve: http://{host}:{port} "
        f"(budget {settings.budget.max_input_tokens or 'off'}, "
        f"upstreams {dict(settings.upstreams) or 'none'}, {workers} worker(s))",
        err=True,
    )
    try:
        uvicorn.run(
            "ctxbudget.server.app:app_from_environment",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level="warning",
        )
    except SystemExit as stopped:
        # uvicorn exits 3 when it cannot start (it has logged why), which here means
        # "refused"; a server that could not start is an error.
        if stopped.code not in (None, 0):
            raise click.exceptions.Exit(int(ExitCode.ERROR)) from None
        raise
