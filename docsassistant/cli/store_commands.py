"""Store commands: db, ingest, search, documents, stats, reindex."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from docsassistant.cli.errors import err_console, friendly_errors
from docsassistant.config import get_settings
from docsassistant.inputs import MAX_COMPONENT_CHARS, clean_query, clean_text

console = Console()
db_app = typer.Typer(help="The embedded PostgreSQL server.", no_args_is_help=True)
documents_app = typer.Typer(help="Indexed documents.", no_args_is_help=True)


def clean_component(value: str | None, *, required: bool = True) -> str | None:
    """A component name as typed, without control characters; None when optional and empty."""
    with friendly_errors():
        name = clean_text(value, what="component name", max_chars=MAX_COMPONENT_CHARS, required=required)
    return name or None


@db_app.command("status")
def db_status() -> None:
    """Show which database is used and whether it answers."""
    import sqlalchemy as sa

    from docsassistant.db import embedded_running, get_engine

    settings = get_settings()
    where = "DATABASE_URL" if settings.database_url else f"embedded, {settings.pg_dir}"
    if not settings.database_url and not embedded_running(settings):
        # Connecting would start it: a status check must not change the status.
        console.print(
            f"The embedded PostgreSQL is not running ({settings.pg_dir}). Commands start it when "
            "they need it; `docsassistant db up` starts it and leaves it running."
        )
        raise typer.Exit(1)
    with friendly_errors():
        engine = get_engine(settings)
        with engine.connect() as conn:
            version = conn.execute(sa.text("SHOW server_version")).scalar()
    console.print(f"PostgreSQL {version} is up ({where}).")


@db_app.command("up")
def db_up() -> None:
    """Start the embedded server and leave it running."""
    from docsassistant.db import embedded_uri
    from docsassistant.store import open_store

    settings = get_settings()
    if settings.database_url:
        console.print("DATABASE_URL is set: there is no embedded server to start.")
        raise typer.Exit(1)
    with friendly_errors():
        uri = embedded_uri(settings, keep_running=True)
        open_store(settings, check=False)
    console.print(f"Embedded PostgreSQL running: {uri}")


@db_app.command("down")
def db_down() -> None:
    """Stop the embedded server."""
    from docsassistant.db import stop_embedded

    stopped = stop_embedded(get_settings())
    console.print("Stopped." if stopped else "No embedded server was running.")


@documents_app.command("list")
def documents_list(
    component: Annotated[str | None, typer.Option("--component", "-c")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """List indexed documents with their chunk counts."""
    from docsassistant.documents import list_documents

    component = clean_component(component, required=False)
    with friendly_errors():
        docs = list_documents(component)
    if as_json:
        print(json.dumps(docs, default=str, indent=2))
        return
    table = Table("component", "source_path", "title", "chunks", "indexed")
    for d in docs:
        table.add_row(
            d["component"],
            d["source_path"],
            d["title"],
            str(d["chunk_count"]),
            f"{d['indexed_at']:%Y-%m-%d %H:%M}",
        )
    console.print(table)


@documents_app.command("delete")
def documents_delete(component: str, source_path: str) -> None:
    """Delete one document and its chunks."""
    from docsassistant.documents import delete_document

    component = clean_component(component)
    with friendly_errors():
        deleted = delete_document(component, source_path)
    if not deleted:
        err_console.print(f"[bold red]Error:[/] No document {source_path!r} in component {component!r}.")
        raise typer.Exit(1)
    console.print(f"Deleted {component}/{source_path}.")


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to index.")],
    component: Annotated[str, typer.Option("--component", "-c", help="Component to index into.")],
    base: Annotated[Path | None, typer.Option(help="source_path is relative to this (default: cwd).")] = None,
    prune: Annotated[
        bool,
        typer.Option(
            help="Remove documents under the given paths whose files are gone (never uploads; "
            "nothing is removed when any file fails)."
        ),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Index nothing; list what --prune would remove.")
    ] = False,
    force: Annotated[bool, typer.Option(help="Re-index files even when unchanged.")] = False,
) -> None:
    """Index files and folders; unchanged files are skipped."""
    from docsassistant.ingest import index_paths
    from docsassistant.prune import preview_prune

    component = clean_component(component)
    if dry_run:
        with friendly_errors():
            plan = preview_prune(paths, component, base=base)
        for note in (plan.refused, plan.note):
            if note:
                console.print(f"[yellow]{note}[/]", highlight=False)
        if not plan.refused:
            console.print(f"--prune would remove {len(plan.doomed)} document(s).", highlight=False)
            for source_path in plan.doomed:
                console.print(f"  would remove {component}/{source_path}", highlight=False)
        raise typer.Exit(1 if plan.refused else 0)

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with friendly_errors(), Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("Indexing", total=None)

        def on_progress(p) -> None:
            bar.update(task, total=p.total, completed=p.done, description=p.result.source_path[-50:])

        report = index_paths(paths, component, base=base, prune=prune, force=force, progress=on_progress)
    counts = report.counts()
    console.print(", ".join(f"{n} {name}" for name, n in counts.items()))
    for failed in report.by_status("failed"):
        console.print(f"[red]failed[/] {failed.source_path}: {failed.reason}", highlight=False)
    for skipped in report.by_status("skipped"):
        console.print(f"[yellow]skipped[/] {skipped.source_path}: {skipped.reason}", highlight=False)
    for removed in report.by_status("removed"):
        console.print(f"removed {component}/{removed.source_path}", highlight=False)
    for note in report.notes:
        console.print(f"[yellow]{note}[/]", highlight=False)
    if counts["added"] or counts["updated"]:
        console.print(f"[dim]{report.timings.summary()}[/]", highlight=False)
    if counts["failed"]:  # the other files are indexed; a script still learns that some failed
        raise typer.Exit(1)


def search(
    query: str,
    component: Annotated[str | None, typer.Option("--component", "-c")] = None,
    k: Annotated[int, typer.Option("-k")] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON array of hits.")] = False,
) -> None:
    """Hybrid search of the indexed documentation."""
    from docsassistant.search import search_docs

    component = clean_component(component, required=False)
    with friendly_errors():
        query = clean_query(query)
        hits = search_docs(query, component, k)
    if as_json:
        print(json.dumps(hits, ensure_ascii=False))
        return
    for i, hit in enumerate(hits, 1):
        where = f"{hit['source_path']}" + (f" › {hit['section']}" if hit["section"] else "")
        console.print(f"[bold]{i}. {where}[/]  [dim]score {hit['score']:.4f}[/]", highlight=False)
        console.print(hit["content"][:300].replace("\n", " "), highlight=False)
        console.print()


def stats() -> None:
    """Documents and chunks per component."""
    from docsassistant.documents import store_stats

    with friendly_errors():
        rows = store_stats()
    table = Table("component", "documents", "chunks")
    for r in rows:
        table.add_row(r["component"], str(r["documents"]), str(r["chunks"]))
    console.print(table)


def reindex() -> None:
    """Re-embed every chunk with the configured embedding model."""
    from docsassistant.reindex import reindex as run_reindex

    with friendly_errors():
        n = run_reindex(progress=lambda done, total: console.print(f"{done}/{total} chunks", highlight=False))
    console.print(f"Re-embedded {n} chunks with {get_settings().embedding_model}.")


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
    app.add_typer(documents_app, name="documents")
    for command in (ingest, search, stats, reindex):
        app.command()(command)
