"""`docsassistant graph build` and `graph stats`: the knowledge graph of an existing store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from docsassistant.cli.errors import friendly_errors
from docsassistant.config import get_settings

console = Console()
graph_app = typer.Typer(help="The knowledge graph (entities, relations, links).", no_args_is_help=True)


def _print_size(size) -> None:
    per_k = 1000 / size.chunks if size.chunks else 0.0
    console.print(
        f"{size.chunks} chunks: {size.entities} entities ({size.entities * per_k:.0f} per 1k chunks), "
        f"{size.mentions} mentions ({size.mentions * per_k:.0f} per 1k), {size.relations} relations "
        f"({size.relations * per_k:.0f} per 1k), {size.links} links ({size.resolved_links} resolved)."
    )


@graph_app.command("build")
def build(
    component: Annotated[str | None, typer.Option("--component", "-c", help="Only this component.")] = None,
    base: Annotated[
        Path | None,
        typer.Option(help="Folder the source_paths are relative to, to read links from the files."),
    ] = None,
    extractor: Annotated[
        str, typer.Option(help="default (no model) or llm (Ollama, costs calls).")
    ] = "default",
) -> None:
    """Build (or rebuild) the graph of documents already indexed."""
    from docsassistant.embeddings import get_embedder
    from docsassistant.knowledge_graph.build import build_graph
    from docsassistant.knowledge_graph.llm_extract import LLMExtractor
    from docsassistant.store import open_store

    if extractor not in ("default", "llm"):
        console.print(f"--extractor must be default or llm, not {extractor!r}.")
        raise typer.Exit(2)
    if base is not None and not base.is_dir():
        console.print(f"--base {base} is not a folder.")
        raise typer.Exit(2)
    settings = get_settings()
    llm = None
    if extractor == "llm":
        from docsassistant.agent.llm import ModelUnavailable, check_ollama

        with friendly_errors(ModelUnavailable):
            check_ollama(settings)
        llm = LLMExtractor(settings)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with friendly_errors(), Progress(*columns, console=console, transient=True) as bar:
        engine = open_store(settings)
        task = bar.add_task("Building the graph", total=None)
        report = build_graph(
            engine,
            get_embedder(settings).embed_documents,
            component=component,
            base=base,
            extractor=llm,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    console.print(
        f"{report.documents} documents: extraction {report.extract_s:.1f} s, "
        f"{report.embedded_entities} new entities embedded in {report.embed_s:.1f} s."
    )
    _print_size(report.size)
    if llm is not None:
        cost = llm.cost()
        console.print(
            f"LLM extraction: {cost['calls']} calls ({cost['failed_calls']} unparsable) for "
            f"{cost['chunks']} chunks; {cost['prompt_tokens_per_chunk']:.0f} prompt + "
            f"{cost['output_tokens_per_chunk']:.0f} output tokens per chunk."
        )


@graph_app.command("stats")
def stats(component: Annotated[str | None, typer.Option("--component", "-c")] = None) -> None:
    """Size of the graph (per 1k chunks)."""
    from docsassistant.knowledge_graph.build import graph_size
    from docsassistant.store import open_store

    with friendly_errors():
        _print_size(graph_size(open_store(get_settings()), component))


def register(app: typer.Typer) -> None:
    app.add_typer(graph_app, name="graph")
