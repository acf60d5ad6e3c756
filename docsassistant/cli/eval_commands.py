"""Evaluation commands: `eval search` (retrieval quality) and `eval answers` (the agent over a QA set)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from docsassistant.cli.errors import friendly_errors
from docsassistant.cli.output import console, file_progress, fmt, progress_bar, skip, verdict, write_json
from docsassistant.config import get_settings

eval_app = typer.Typer(help="Measure retrieval quality on question sets.", no_args_is_help=True)


def _print_qa(result: dict) -> None:
    k = result["k"]
    per_question = Table(title=f"Questions (k={k})")
    for col in ("id", "type", "component", f"recall@{k}", "RR", "evidence", "top sim", "first hit"):
        per_question.add_column(col)
    for q in result["questions"]:
        per_question.add_row(
            q["id"],
            q["type"],
            q["component"] or "(all)",
            fmt(q["recall"], 2),
            fmt(q["rr"], 2),
            fmt(q["evidence"], 2),
            fmt(q["top_similarity"]),
            (q["retrieved"][0] if q["retrieved"] else "(no hit)")[-48:],
        )
    console.print(per_question)

    agg = result["aggregate"]
    table = Table(title=f"Retrieval quality by question type (k={k}, {result['mode']} search)")
    for col in ("type", "n", f"recall@{k}", f"hit@{k}", f"all@{k}", "MRR", "evidence", "chars", "other"):
        table.add_column(col)
    for name in ("single", "multi", "answerable", "count", "unanswerable"):
        a = agg.get(name)
        if a is None:
            continue
        other = ""
        if name == "count":
            other = (
                f"hits in counted folder {fmt(a['in_scope'])}; store count = answer "
                f"{a['store_count_matches']}/{a['store_count_checked']}"
            )
        elif name == "unanswerable":
            other = (
                f"top score {fmt(a['top_score_mean'], 4)}, top sim mean {fmt(a['top_similarity_mean'])} "
                f"max {fmt(a['top_similarity_max'])}; answerable at or below that max: "
                f"{fmt(a['answerable_below_max'])}"
            )
        elif name == "answerable":
            other = f"top sim mean {fmt(a['top_similarity_mean'])} min {fmt(a['top_similarity_min'])}"
        table.add_row(
            name,
            str(a["n"]),
            fmt(a.get("recall")),
            fmt(a.get("hit_rate")),
            fmt(a.get("all_found_rate")),
            fmt(a.get("mrr")),
            fmt(a.get("evidence")),
            fmt(a.get("context_chars_mean"), 0),
            other,
        )
    console.print(table)
    console.print(
        "evidence = share of the expected evidence strings found verbatim (case, spaces, ` and * "
        f"ignored) in the {k} hits; chars = characters of text in the {k} hits.",
        highlight=False,
    )
    single = agg.get("single")
    if single and single.get("hit_rate") is not None:
        ok = single["hit_rate"] >= 0.92
        console.print(
            f"Single-source questions with the expected source in the top {k}: "
            f"{fmt(single['hit_rate'])} (target ≥ 0.92: {verdict(ok)})",
            highlight=False,
        )


def _print_beir(result: dict) -> None:
    table = Table(
        title=f"BEIR {result['component']} ({result['queries']} judged queries, {result['documents']} docs, "
        f"{result['mode']} search)"
    )
    table.add_column("metric")
    table.add_column("value")
    for name, value in result["metrics"].items():
        table.add_row(name, f"{value:.4f}")
    table.add_row("search latency mean (ms)", fmt(result["latency_ms_mean"], 1))
    console.print(table)
    console.print(
        f"Runs are document-level: {result['chunk_k']} chunks per query, collapsed to documents "
        "(best chunk wins).",
        highlight=False,
    )


@eval_app.command("search")
def eval_search(
    qa: Annotated[Path | None, typer.Option(help="Docs QA file (docs_qa_dev.jsonl format).")] = None,
    beir: Annotated[
        Path | None, typer.Option(help="BEIR folder (corpus.jsonl, queries.jsonl, qrels/).")
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option(help="Index each top-level folder as a component when missing (with --qa).")
    ] = None,
    k: Annotated[
        int | None, typer.Option("-k", help="Hits per question (default 5 for --qa, 10 for --beir).")
    ] = None,
    component: Annotated[
        str | None, typer.Option("--component", "-c", help="BEIR component name (default beir-<folder>).")
    ] = None,
    split: Annotated[str, typer.Option(help="BEIR qrels split.")] = "test",
    mode: Annotated[
        str, typer.Option(help="search_docs mode: hybrid (the app's), dense, text, bm25, ident or graph.")
    ] = "hybrid",
    qa_split: Annotated[
        str | None, typer.Option("--split-qa", help="Only the questions of this split (dev or test).")
    ] = None,
    compare: Annotated[
        bool, typer.Option(help="Also print dense, BM25, identifier, lexical and fused side by side.")
    ] = True,
    json_out: Annotated[Path | None, typer.Option("--json-out", help="Write all results as JSON.")] = None,
) -> None:
    """Retrieval quality: source recall/MRR per question type, or BEIR nDCG/recall/MRR."""
    from docsassistant import beir_eval, evaluation

    if (qa is None) == (beir is None):
        console.print("Pass exactly one of --qa FILE or --beir DIR.")
        raise typer.Exit(2)
    from functools import partial

    from docsassistant.cli import retrieval_commands
    from docsassistant.compare_retrievers import SIDE_BY_SIDE
    from docsassistant.search import MODE_LISTS, search_docs

    if mode not in MODE_LISTS:
        console.print(f"--mode must be one of {', '.join(MODE_LISTS)}, not {mode!r}.")
        raise typer.Exit(2)

    search = partial(search_docs, mode=mode)
    settings = get_settings()
    if qa is not None:
        if not qa.is_file():
            skip(f"question file {qa} not found (the shared data is not on this machine?).")
        if corpus is not None and not corpus.is_dir():
            skip(f"corpus folder {corpus} not found.")
        k = k or 5
        with friendly_errors():
            questions = evaluation.load_qa(qa)
            if qa_split is not None:
                questions = [q for q in questions if q.split == qa_split]
                if not questions:
                    console.print(f"{qa} has no questions with split {qa_split!r}.")
                    raise typer.Exit(2)
            if corpus is not None:
                with progress_bar() as bar:
                    task = bar.add_task("Indexing", total=None)
                    reports = evaluation.index_corpus(
                        corpus, settings=settings, progress=file_progress(bar, task)
                    )
                for name, report in reports.items():
                    counts = report.counts()
                    console.print(f"Indexed {name}: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
                    for failed in report.by_status("failed"):
                        console.print(
                            f"  [red]failed[/] {failed.source_path}: {failed.reason}", highlight=False
                        )
            with progress_bar() as bar:
                task = bar.add_task("Searching", total=len(questions))
                result = evaluation.evaluate_qa(
                    questions,
                    k,
                    settings=settings,
                    search=search,
                    progress=lambda i, n: bar.update(task, completed=i),
                )
        result["qa_file"] = str(qa)
        result["mode"] = mode
        result["split"] = qa_split
        _print_qa(result)
        if compare:
            with friendly_errors():
                result["side_by_side"] = retrieval_commands.compare_qa(
                    questions, SIDE_BY_SIDE, f"Side by side ({qa.name}, split {qa_split or 'all'})"
                )
        write_json(json_out, result)
        return

    assert beir is not None
    if not beir.is_dir():
        skip(f"BEIR folder {beir} not found (the shared data is not on this machine?).")
    missing = beir_eval.beir_missing(beir, split)
    if missing:
        skip(f"{beir} is not a complete BEIR folder (missing {', '.join(missing)}).")
    k = k or 10
    with friendly_errors():
        data = beir_eval.load_beir(beir, split)
        name = component or beir_eval.beir_component(beir)
        with progress_bar() as bar:
            task = bar.add_task("Indexing", total=len(data.corpus))
            report = beir_eval.index_beir(data, name, settings=settings, progress=file_progress(bar, task))
        counts = report.counts()
        console.print(f"Indexed {name}: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
        with progress_bar() as bar:
            task = bar.add_task("Searching", total=len(data.qrels))
            result = beir_eval.evaluate_beir(
                data,
                name,
                k,
                settings=settings,
                search=search,
                progress=lambda i, n: bar.update(task, completed=i, total=n),
            )
    result["beir_folder"] = str(beir)
    result["mode"] = mode
    _print_beir(result)
    if compare:
        with friendly_errors():
            result["side_by_side"] = retrieval_commands.compare_beir(data, name, SIDE_BY_SIDE)
    write_json(json_out, result)


def _print_answers(report) -> None:
    per_question = Table(title=f"Answers ({report.model})")
    for col in ("id", "type", "outcome", "cited valid", "grounded", "flags", "calls", "prompt tok", "s"):
        per_question.add_column(col)
    for r in report.results:
        per_question.add_row(
            r.id,
            r.type,
            r.outcome,
            fmt(r.citation_valid),
            fmt(r.grounded),
            ", ".join(r.flags),
            str(r.model_calls),
            str(r.prompt_tokens),
            fmt(r.latency_s, 1),
        )
    console.print(per_question)
    by_type = Table(title="Per question type")
    for col in (
        "type",
        "n",
        "outcomes",
        "citation validity",
        "expected cited",
        "grounded rate",
        "calls mean/max",
        "prompt tok mean",
        "latency p50/max s",
        "flags",
    ):
        by_type.add_column(col)
    for t in report.by_type:
        by_type.add_row(
            t.type,
            str(t.questions),
            ", ".join(f"{k} {v}" for k, v in t.outcomes.items()),
            fmt(t.citation_validity, 2),
            fmt(t.expected_found_rate, 2),
            fmt(t.grounded_rate, 2),
            f"{t.model_calls_mean:.1f}/{t.model_calls_max}",
            f"{t.prompt_tokens_mean:.0f}",
            f"{t.latency_p50_s:.1f}/{t.latency_max_s:.1f}",
            ", ".join(f"{k} {v}" for k, v in t.flags.items()),
        )
    console.print(by_type)


@eval_app.command("answers")
def eval_answers(
    qa: Annotated[Path, typer.Option(help="Docs QA file (docs_qa_dev.jsonl format).")],
    json_out: Annotated[Path | None, typer.Option("--json-out", help="Write all results as JSON.")] = None,
) -> None:
    """Answer quality: run the agent (the configured Ollama model) over a QA set; per question
    type, the outcome, citation validity, grounded rate, flags, model calls, tokens, latency."""
    from docsassistant import evaluation
    from docsassistant.answer_eval import evaluate_answers

    if not qa.is_file():
        skip(f"question file {qa} not found (the shared data is not on this machine?).")
    with friendly_errors():
        questions = evaluation.load_qa(qa)
        with progress_bar() as bar:
            task = bar.add_task("Asking", total=len(questions))
            report = evaluate_answers(questions, progress=lambda i, n: bar.update(task, completed=i))
    _print_answers(report)
    write_json(json_out, {"qa_file": str(qa), **report.model_dump()})


def register(app: typer.Typer) -> None:
    from docsassistant.cli import bench_commands, bench_embedder_commands, retrieval_commands

    bench_embedder_commands.register(bench_commands.bench_app)
    retrieval_commands.add_commands(eval_app, bench_commands.bench_app)
    app.add_typer(eval_app, name="eval")
    app.add_typer(bench_commands.bench_app, name="bench")
