"""Turning the package's expected errors into one clear line and exit code 1."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from docsassistant.agent.faults import database_fault_message
from docsassistant.db import DatabaseUnavailable
from docsassistant.loaders import LoaderError
from docsassistant.search import SearchError
from docsassistant.store import StoreModelMismatch

err_console = Console(stderr=True)
EXPECTED: tuple[type[Exception], ...] = (
    DatabaseUnavailable,
    StoreModelMismatch,
    SearchError,
    LoaderError,
    ValueError,
)


@contextmanager
def friendly_errors(*extra: type[Exception]) -> Iterator[None]:
    try:
        yield
    except EXPECTED + extra as exc:
        err_console.print(f"[bold red]Error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
    except Exception as exc:
        # The server stopped mid-command (killed, `db down`): say what to start, not a traceback.
        message = database_fault_message(exc)
        if message is None:
            raise
        err_console.print(f"[bold red]Error:[/] {message}", highlight=False)
        raise typer.Exit(1) from None
