"""Commands around the app: bootstrap (used by `make run`)."""

from __future__ import annotations

import typer
from rich.console import Console

from docsassistant.cli.errors import friendly_errors

console = Console()


def bootstrap() -> None:
    """Start the database, migrate it, and index docs/ if the store is empty."""
    from docsassistant.bootstrap import BUNDLED_COMPONENT
    from docsassistant.bootstrap import bootstrap as run_bootstrap

    with friendly_errors():
        report = run_bootstrap()
    if report is None:
        console.print("Store ready (already has documents).")
        return
    counts = ", ".join(f"{n} {k}" for k, n in report.counts().items() if n)
    console.print(f"Indexed the bundled docs/ as component '{BUNDLED_COMPONENT}': {counts}.")


def register(app: typer.Typer) -> None:
    app.command()(bootstrap)
