"""What the evaluation and benchmark commands share: one console, number formatting, a
verdict against a target, JSON reports and progress bars."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from docsassistant.cli.errors import err_console

console = Console()


def skip(message: str) -> None:
    """A named input is missing: say which, and fail (a script must not read a skipped
    evaluation as a passed one)."""
    err_console.print(f"[bold red]Not found:[/] {message}", highlight=False)
    raise typer.Exit(1)


def fmt(value, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def verdict(ok: bool | None) -> str:
    if ok is None:
        return ""
    return "[green]met[/]" if ok else "[red]not met[/]"


def write_json(path: Path | None, data: dict) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    console.print(f"Wrote {path}", highlight=False)


def progress_bar() -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=console, transient=True)


def file_progress(bar: Progress, task):
    def on_progress(p) -> None:
        bar.update(task, total=p.total, completed=p.done, description=p.result.source_path[-50:])

    return on_progress
