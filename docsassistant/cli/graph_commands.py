"""`docsassistant graph build` and `graph stats`: the knowledge graph of an existing store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args

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
            get_embedder(settings).embed_phrases,
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


def _tune(graph_weight: float | None, floor: float | None, fusion: str | None = None) -> None:
    """Override the graph list's fusion weight (`search.GRAPH_WEIGHTS["graph"]`), graph
    mode's fusion (`search.GRAPH_FUSION`) and the entity similarity floor for this run (tuning)."""
    from docsassistant import search
    from docsassistant.knowledge_graph import retrieve

    if fusion is not None:
        if fusion not in get_args(search.GraphFusion):
            console.print(f"--graph-fusion must be one of {', '.join(get_args(search.GraphFusion))}.")
            raise typer.Exit(2)
        search.GRAPH_FUSION = fusion  # type: ignore[assignment]
    if graph_weight is not None:
        search.GRAPH_WEIGHTS["graph"] = graph_weight
    if floor is not None:
        retrieve.SIMILARITY_FLOOR = floor


def _table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from rich.table import Table

    table = Table(title=title)
    for column in columns:
        table.add_column(column, justify="right" if column != columns[0] else "left")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@graph_app.command("eval")
def evaluate(
    beir: Annotated[
        Path | None, typer.Option(help="A BEIR folder (corpus.jsonl, queries.jsonl, qrels/).")
    ] = None,
    qa: Annotated[Path | None, typer.Option(help="A docs QA .jsonl over the indexed corpus.")] = None,
    modes: Annotated[
        str, typer.Option(help="Search modes to compare, comma-separated.")
    ] = "dense,hybrid,graph",
    k: Annotated[
        int | None, typer.Option("-k", help="Hits per question (default 10 for BEIR, 10 for QA).")
    ] = None,
    graph_weight: Annotated[
        float | None, typer.Option(help="Override the graph list's fusion weight.")
    ] = None,
    floor: Annotated[float | None, typer.Option(help="Override the entity similarity floor.")] = None,
    graph_fusion: Annotated[
        str | None, typer.Option(help="Override graph mode's fusion: rrf, minmax or minmax-rank.")
    ] = None,
) -> None:
    """Graph vs no-graph side by side, on the dev and test halves of the questions."""
    from docsassistant import beir_eval, evaluation
    from docsassistant.knowledge_graph.evaluate import SPLITS, compare_beir, compare_qa

    if (qa is None) == (beir is None):
        console.print("Pass exactly one of --qa FILE or --beir DIR.")
        raise typer.Exit(2)
    wanted = [m.strip() for m in modes.split(",") if m.strip()]
    _tune(graph_weight, floor, graph_fusion)
    settings = get_settings()
    k = k or 10
    with friendly_errors():
        if beir is not None:
            if not beir.is_dir() or beir_eval.beir_missing(beir):
                console.print(f"{beir} is not a complete BEIR folder; skipped.")
                raise typer.Exit(0)
            data = beir_eval.load_beir(beir)
            name = beir_eval.beir_component(beir)
            beir_eval.index_beir(data, name, settings=settings)
            result = compare_beir(data, name, wanted, k, settings)
            metrics = list(result[wanted[0]]["all"])
            rows = [
                [f"{mode} ({split})", *(f"{result[mode][split][m]:.4f}" for m in metrics)]
                for split in SPLITS
                for mode in wanted
            ]
            _table(f"{name}: {len(data.qrels)} queries, k={k}", ["mode (split)", *metrics], rows)
            return
        assert qa is not None
        if not qa.is_file():
            console.print(f"{qa} not found; skipped.")
            raise typer.Exit(0)
        result = compare_qa(evaluation.load_qa(qa), wanted, k, settings)
    rows = []
    for split in SPLITS:
        for mode in wanted:
            agg = result[mode].get(split, {})
            multi, answerable = agg.get("multi", {}), agg.get("answerable", {})
            rows.append(
                [
                    f"{mode} ({split})",
                    str(multi.get("n", 0)),
                    _fmt(multi.get("all_found_rate")),
                    _fmt(answerable.get("recall")),
                    _fmt(answerable.get("all_found_rate")),
                    _fmt(answerable.get("mrr")),
                ]
            )
    _table(
        f"{qa.name}, k={k}",
        ["mode (split)", "multi n", "multi all-found", "answerable recall", "answerable all-found", "MRR"],
        rows,
    )


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@graph_app.command("bench")
def bench(
    qa: Annotated[Path, typer.Option(help="A docs QA .jsonl whose questions are the queries.")],
    k: Annotated[int, typer.Option("-k")] = 10,
    rounds: Annotated[int, typer.Option(help="Rounds over the questions; the first only warms up.")] = 3,
) -> None:
    """Search latency with and without the graph (modes interleaved query by query)."""
    from docsassistant import evaluation
    from docsassistant.knowledge_graph.evaluate import search_latency

    if not qa.is_file():
        console.print(f"{qa} not found; skipped.")
        raise typer.Exit(0)
    questions = [q.question for q in evaluation.load_qa(qa)]
    with friendly_errors():
        result = search_latency(questions, None, ["hybrid", "graph"], k, rounds)
    rows = [[m, str(r["n"]), _fmt(r["p50"]), _fmt(r["p95"]), _fmt(r["mean"])] for m, r in result.items()]
    _table(
        f"search latency (ms), {len(questions)} queries x {rounds - 1} timed rounds",
        ["mode", "n", "p50", "p95", "mean"],
        rows,
    )
    added = result["graph"]["p95"] - result["hybrid"]["p95"]
    console.print(
        f"graph adds {added:.1f} ms to the p95 ({result['graph']['p95']:.1f} vs {result['hybrid']['p95']:.1f})."
    )


def register(app: typer.Typer) -> None:
    app.add_typer(graph_app, name="graph")
