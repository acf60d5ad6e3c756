"""Benchmark commands: `bench ingest` and `bench search` (print figures; not tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from docsassistant.cli.errors import friendly_errors
from docsassistant.cli.output import console, file_progress, fmt, progress_bar, skip, verdict, write_json
from docsassistant.config import get_settings

bench_app = typer.Typer(
    help="Benchmark ingestion and search (prints figures; not tests).", no_args_is_help=True
)


def _print_ingest(r: dict) -> None:
    from docsassistant.bench import measure as b

    table = Table(title=f"Ingestion benchmark: {r['corpus']}")
    for col in ("measure", "value", "target", ""):
        table.add_column(col)
    s = r["settings"]
    table.add_row(
        "files (added/failed)",
        f"{r['files']} ({r['files_by_status']['added']}/{r['files_by_status']['failed']})",
        "",
        "",
    )
    table.add_row("chunks", str(r["chunks"]), "", "")
    table.add_row("chunk size / overlap", f"{s['chunk_size']} / {s['chunk_overlap']}", "", "")
    table.add_row("embedder", r.get("embedder", "torch"), "", "")
    table.add_row("model load (before the clock)", f"{r['model_load_s']:.2f} s", "", "")
    table.add_row("torch threads", fmt(r["torch_threads"]), "", "")
    table.add_row("(a) end-to-end ingestion", f"{r['ingest_s']:.2f} s", "", "")
    table.add_row("    of which inside the embedder", f"{r['embed_in_pipeline_s']:.2f} s", "", "")
    if r["embed_only_s"] is not None:
        table.add_row("(b) model alone, same texts and batches", f"{r['embed_only_s']:.2f} s", "", "")
        table.add_row(
            "    CPU time of this process (a) / (b)",
            f"{r['ingest_cpu_s']:.1f} s / {r['embed_only_cpu_s']:.1f} s = {fmt(r['cpu_ratio'])}",
            "",
            "",
        )
        table.add_row(
            "    ratio (a)/(b), wall",
            fmt(r["ratio"]),
            f"≤ {b.TARGET_EMBED_RATIO}",
            verdict(r["ratio"] is not None and r["ratio"] <= b.TARGET_EMBED_RATIO),
        )
    table.add_row(
        "(c) re-ingest unchanged",
        f"{r['reingest_s']:.3f} s = {100 * r['reingest_share']:.2f} % of (a)",
        f"≤ {100 * b.TARGET_REINGEST_SHARE:.0f} %",
        verdict(r["reingest_share"] <= b.TARGET_REINGEST_SHARE and not r["reingest_changed_files"]),
    )
    table.add_row(
        "(d) peak RSS (incl. model)",
        f"{r['peak_rss_mb']:.1f} MB",
        f"≤ {b.TARGET_PEAK_RSS_MB} MB",
        verdict(r["peak_rss_mb"] <= b.TARGET_PEAK_RSS_MB),
    )
    table.add_row(
        "(e) throughput", f"{r['chunks_per_s']:.2f} chunks/s, {r['files_per_s']:.2f} files/s", "", ""
    )
    q = r["query_embedding"]
    table.add_row(
        "(f) query embedding p50 / p95", f"{q['p50_ms']:.2f} / {q['p95_ms']:.2f} ms (n={q['n']})", "", ""
    )
    console.print(table)
    console.print(f"Peak RSS: {r['peak_rss_note']}.", highlight=False)
    for phase, f in r.get("cpu_accounting", {}).items():
        if f.get("other_cpu_s") is None:
            continue
        cpus = r["machine"]["cpus"] or 1
        console.print(
            f"CPU during {phase}: wall {f['wall_s']:.1f} s; this process {f['process_cpu_s']:.1f} s, "
            f"PostgreSQL {f['server_cpu_s']:.1f} s, other processes {f['other_cpu_s']:.1f} s "
            f"(machine busy {f['machine_busy_cpu_s']:.1f} of {cpus * f['wall_s']:.1f} CPU-s on {cpus} CPUs).",
            highlight=False,
        )
    console.print(
        f"Load average (1/5/15 min) at start {r['load_average_start']}, at end {r['load_average_end']} "
        f"on {r['machine']['cpus']} CPUs: other work on the machine inflates wall times.",
        highlight=False,
    )
    for failed in r["failed"]:
        console.print(f"[red]failed[/] {failed['source_path']}: {failed['reason']}", highlight=False)


@bench_app.command("ingest")
def bench_ingest(
    directory: Annotated[Path, typer.Argument(help="Corpus folder; each top-level folder is a component.")],
    chunk_size: Annotated[int | None, typer.Option(help="Override DOCSASSISTANT_CHUNK_SIZE.")] = None,
    overlap: Annotated[int | None, typer.Option(help="Override DOCSASSISTANT_CHUNK_OVERLAP.")] = None,
    prefix: Annotated[
        str | None, typer.Option(help="Component name prefix (default: a random 'bench-xxxxxx-').")
    ] = None,
    keep: Annotated[bool, typer.Option(help="Keep the benchmark's components afterwards.")] = False,
    torch_threads: Annotated[
        int | None, typer.Option(help="Set torch's thread count first (default: torch's own choice).")
    ] = None,
    embedders: Annotated[
        str | None,
        typer.Option(
            help="'torch,onnx,onnx-int8' compares them, each in a child process on its own throwaway store "
            "(default: the configured embedder, in this process and store)."
        ),
    ] = None,
    embed_only: Annotated[
        bool, typer.Option(help="Also time (b), the model alone on the same texts.")
    ] = True,
    json_out: Annotated[Path | None, typer.Option("--json-out")] = None,
) -> None:
    """Time ingestion end to end vs the embedding model alone; re-ingest; peak RSS."""
    if not directory.is_dir():
        skip(f"corpus folder {directory} not found (the shared data is not on this machine?).")
    names = [n.strip() for n in (embedders or "").split(",") if n.strip()]
    if len(names) > 1:
        from docsassistant.cli.bench_embedder_commands import compare_embedders

        compare_embedders(directory, names, embed_only=embed_only, json_out=json_out)
        return
    if names and names[0] != get_settings().embedder:
        raise typer.BadParameter(
            f"--embedders {names[0]} differs from DOCSASSISTANT_EMBEDDER={get_settings().embedder}: "
            "name two embedders to compare, or set DOCSASSISTANT_EMBEDDER."
        )
    with friendly_errors(), progress_bar() as bar:
        task = bar.add_task("Indexing", total=None)
        from docsassistant.bench import ingest

        result = ingest.bench_ingest(
            directory,
            chunk_size=chunk_size,
            overlap=overlap,
            prefix=prefix,
            keep=keep,
            embed_only=embed_only,
            torch_threads=torch_threads,
            progress=file_progress(bar, task),
            log=lambda msg: bar.console.print(msg, highlight=False),
        )
    _print_ingest(result)
    write_json(json_out, result)


def _latency_table(title: str, rows: list[tuple[str, dict]], p50: float | None, p95: float | None) -> Table:
    table = Table(title=title)
    for col in ("case", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "target"):
        table.add_column(col)
    for name, s in rows:
        target = ""
        if p95 is not None and (name in ("no filter", "component filter") or name.startswith("no filter,")):
            ok = (p50 is None or s["p50_ms"] <= p50) and s["p95_ms"] <= p95
            target = (f"p50 ≤ {p50:g}, " if p50 is not None else "") + f"p95 ≤ {p95:g}: {verdict(ok)}"
        table.add_row(
            name,
            str(s["n"]),
            f"{s['p50_ms']:.2f}",
            f"{s['p95_ms']:.2f}",
            f"{s['p99_ms']:.2f}",
            f"{s['max_ms']:.2f}",
            target,
        )
    return table


def _latency_targets(chunks: int) -> tuple[float | None, float]:
    """(p50, p95) targets in ms for a store of this size."""
    from docsassistant.bench import measure as b

    if chunks >= b.SCALE_CHUNKS:
        return None, b.TARGET_P95_MS_AT_SCALE
    return b.TARGET_P50_MS, b.TARGET_P95_MS


def _print_synthetic(r: dict) -> None:
    from docsassistant.bench import measure as b

    console.print(
        f"Synthetic HNSW: {r['n']} × {r['dim']} vectors ({r['vectors']}); queries: {r['queries']} "
        f"{r['query_vectors']}.",
        highlight=False,
    )
    console.print(
        f"Load {r['load_s']:.1f} s; HNSW ({r['hnsw_options']}) build {r['build_s']:.1f} s "
        f"(maintenance_work_mem {r['maintenance_work_mem']}, {r['parallel_maintenance_workers']} parallel "
        f"workers); index {r['index_mb']:.1f} MB, table {r['table_mb']:.1f} MB.",
        highlight=False,
    )
    console.print(
        f"Exact top-10 (SQL, index scans off) agrees with numpy on {r['exact_vs_numpy_agreement']:.4f} "
        "of ids.",
        highlight=False,
    )
    table = Table(
        title=f"HNSW query (LIMIT {r['limit']}, index forced) vs exact top-10; 'planner' = what it "
        "picks unforced"
    )
    for col in ("ef_search", "p50 ms", "p95 ms", "p99 ms", "recall@10", "min recall@10", "planner", "target"):
        table.add_column(col)
    e = r["exact"]
    table.add_row(
        "exact (seq scan)", f"{e['p50_ms']:.2f}", f"{e['p95_ms']:.2f}", f"{e['p99_ms']:.2f}", "1", "1", "", ""
    )
    for ef, a in r["ann"].items():
        ok = a["p95_ms"] <= b.TARGET_ANN_P95_MS and a["recall_at_10"] >= b.TARGET_ANN_RECALL
        label = f"{ef}" + (" (search.py)" if int(ef) == r["search_py_ef_search"] else "")
        table.add_row(
            label,
            f"{a['p50_ms']:.2f}",
            f"{a['p95_ms']:.2f}",
            f"{a['p99_ms']:.2f}",
            f"{a['recall_at_10']:.4f}",
            f"{a['recall_at_10_min']:.2f}",
            "index" if a["planner_picks_index"] else "seq scan",
            f"p95 ≤ {b.TARGET_ANN_P95_MS:g}, recall ≥ {b.TARGET_ANN_RECALL}: {verdict(ok)}",
        )
    console.print(table)


@bench_app.command("search")
def bench_search(
    queries: Annotated[int, typer.Option(help="Distinct queries to time.")] = 200,
    qa: Annotated[Path | None, typer.Option(help="Use this QA file's questions first.")] = None,
    warmup: Annotated[int, typer.Option(help="Warm-up queries (not timed).")] = 20,
    synthetic: Annotated[
        int | None, typer.Option(help="Also build HNSW over N synthetic vectors in a separate table.")
    ] = None,
    synthetic_queries: Annotated[int, typer.Option(help="Query vectors for the synthetic test.")] = 200,
    sigma: Annotated[float, typer.Option(help="Per-dimension noise added to real embeddings.")] = 0.04,
    hnsw_m: Annotated[int | None, typer.Option(help="HNSW m for the synthetic index (default 16).")] = None,
    ef_construction: Annotated[
        int | None, typer.Option(help="HNSW ef_construction for the synthetic index (default 64).")
    ] = None,
    torch_threads: Annotated[
        int | None, typer.Option(help="Set torch's thread count first (default: torch's own choice).")
    ] = None,
    skip_latency: Annotated[
        bool, typer.Option(help="Only the synthetic test (queries are still chosen the same way).")
    ] = False,
    json_out: Annotated[Path | None, typer.Option("--json-out")] = None,
) -> None:
    """Warm search_docs latency (p50/p95/p99), and optionally HNSW at N vectors."""
    if qa is not None and not qa.is_file():
        skip(f"question file {qa} not found (the shared data is not on this machine?).")
    out: dict = {}
    if skip_latency:
        if not synthetic:
            console.print("--skip-latency needs --synthetic N.")
            raise typer.Exit(2)
        with friendly_errors():
            from docsassistant.search import list_components

            settings = get_settings()
            from docsassistant.bench import search

            chosen, _, _ = search.choose_queries(
                settings, queries, qa, warmup, set(list_components(settings))
            )
        _run_synthetic(
            out, [q for q, _ in chosen], synthetic, synthetic_queries, sigma, hnsw_m, ef_construction
        )
        write_json(json_out, out)
        return
    with friendly_errors():
        from docsassistant.bench import search

        result = search.bench_search(
            queries=queries,
            qa_path=qa,
            warmup=warmup,
            torch_threads=torch_threads,
            log=lambda m: console.print(m, highlight=False),
        )
    out["search"] = result
    console.print(
        f"Store: {result['store_chunks']} chunks in {', '.join(result['components'])}; "
        f"{result['queries']} distinct queries ({result['queries_from_qa']} from the QA file, "
        f"{result['queries_generated']} generated from titles/sections), k=5, after "
        f"{result['warmup_queries']} warm-up queries; torch threads {result['torch_threads']}; load average "
        f"{result['load_average_start']} → {result['load_average_end']}.",
        highlight=False,
    )
    console.print(
        _latency_table(
            "search_docs latency (warm, query embedding included)",
            [
                ("no filter", result["unfiltered"]),
                ("component filter", result["filtered"]),
                ("dense only (no filter)", result["dense_only"]),
                ("BM25 + identifiers only (no filter)", result["text_only"]),
                (f"no filter, {result['paced_pause_s'] * 1000:.0f} ms apart", result["unfiltered_paced"]),
                ("query embedding only", result["embed_query_only"]),
            ],
            *_latency_targets(result["store_chunks"]),
        )
    )
    store = result["store_hnsw"]
    wide = f"recall_at_{store['limit']}"
    console.print(
        f"HNSW on the real store ({store['chunks']} chunks, LIMIT {store['limit']}, index forced) vs exact: "
        + "; ".join(
            f"ef_search {ef}: recall@10 {v['recall_at_10']:.4f} (min {v['recall_at_10_min']:.1f}), "
            f"recall@{store['limit']} {v[wide]:.4f}, p95 {v['p95_ms']:.2f} ms"
            for ef, v in store.items()
            if isinstance(v, dict)
        ),
        highlight=False,
    )
    if synthetic:
        _run_synthetic(
            out, result["query_texts"], synthetic, synthetic_queries, sigma, hnsw_m, ef_construction
        )
    write_json(json_out, out)


def _run_synthetic(
    out: dict,
    texts: list[str],
    n: int,
    n_queries: int,
    sigma: float,
    m: int | None,
    ef_construction: int | None,
) -> None:
    with friendly_errors():
        from docsassistant.bench import search, synthetic

        vectors = search.query_embeddings(texts[:n_queries])
        syn = synthetic.bench_synthetic(
            n,
            query_vectors=vectors,
            n_queries=n_queries,
            sigma=sigma,
            m=m,
            ef_construction=ef_construction,
            log=lambda msg: console.print(msg, highlight=False),
        )
    out["synthetic"] = syn
    _print_synthetic(syn)
