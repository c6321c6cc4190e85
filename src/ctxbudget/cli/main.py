"""Entry point and command group."""

from __future__ import annotations

import click

from ctxbudget.cli.demo import demo


@click.group()
@click.version_option(package_name="ctxbudget")
def main() -> None:
    """Keep an LLM agent's prompt inside its context window and its budget."""


main.add_command(demo)
