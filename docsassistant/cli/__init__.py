"""The `docsassistant` command: assembles the sub-commands of this package."""

from __future__ import annotations

import logging

import typer

from docsassistant.cli import (
    agent_commands,
    app_commands,
    conversation_commands,
    eval_commands,
    graph_commands,
    mcp_commands,
    safety_commands,
    store_commands,
)

app = typer.Typer(
    help="DocsAssistant: index documentation and ask questions about it.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
store_commands.register(app)
agent_commands.register(app)
app_commands.register(app)
eval_commands.register(app)
conversation_commands.register(app)
graph_commands.register(app)
mcp_commands.register(app)
safety_commands.register(app)


def main() -> None:
    # psycopg_pool warns on every failed reconnect ("error connecting in 'pool-1': …") while
    # the database is down; a command says once what to start instead (cli/errors.py).
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    app()
