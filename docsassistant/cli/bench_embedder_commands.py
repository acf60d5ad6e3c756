"""Embedder benchmark output: `bench ingest --embedders torch,onnx,onnx-int8` and
`bench search-during-ingest` (see docsassistant/bench/embedders.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from docsassistant.cli.errors import friendly_errors
from docsassistant.cli.output import console, fmt, skip, verdict, write_json


def compare_embedders(directory: Path, names: list[str], *, embed_only: bool, json_out: Path | None) -> None:
    from docsassistant.bench import embedders as be

    unknown = sorted(set(names) - {"torch", "onnx", "onnx-int8"})
    if unknown:
        raise typer.BadParameter(
            f"Unknown embedder(s) {', '.join(unknown)}: use torch, onnx and/or onnx-int8."
        )
    with friendly_errors():
        result = be.compare_ingest(
            directory, names, embed_only=embed_only, log=lambda msg: console.print(msg, highlight=False)
        )
    table = Table(title=f"Embedders compared on {directory} (one child process and store each)")
    for col in (
        "embedder",
        "chunks",
        "ingest s",
        "chunks/s",
        "chunks per CPU-s",
        "peak RSS MB",
        "query embed p50 / p95 ms",
        "load avg end",
    ):
        table.add_column(col)
    for r in result["runs"].values():
        q = r["query_embedding"]
        table.add_row(
            r["embedder"],
            str(r["chunks"]),
            f"{r['ingest_s']:.2f}",
            f"{r['chunks_per_s']:.2f}",
            fmt(r["chunks_per_cpu_s"], 2),
            f"{r['peak_rss_mb']:.1f}",
            f"{q['p50_ms']:.2f} / {q['p95_ms']:.2f}",
            str(r["load_average_end"]),
        )
    console.print(table)
    for name, run in result["runs"].items():
        if name != "torch":
            _print_onnx_verdicts(name, run, result)
    write_json(json_out, result)


def _print_onnx_verdicts(name: str, run: dict, result: dict) -> None:
    from docsassistant.bench import embedders as be

    key = name.replace("-", "_")
    if f"{key}_speedup" in result:
        ok = result[f"{key}_speedup"] >= be.TARGET_ONNX_SPEEDUP
        console.print(
            f"{name} / torch throughput: {result[f'{key}_speedup']:.3f}× wall "
            f"(target ≥ {be.TARGET_ONNX_SPEEDUP}×) {verdict(ok)}; "
            f"{fmt(result[f'{key}_speedup_cpu'])}× per CPU-second of this process",
            highlight=False,
        )
    rss_ok = run["peak_rss_mb"] <= be.TARGET_ONNX_PEAK_RSS_MB
    p50_ok = run["query_embedding"]["p50_ms"] <= be.TARGET_QUERY_EMBED_P50_MS
    console.print(
        f"{name} peak RSS {run['peak_rss_mb']:.1f} MB (target ≤ {be.TARGET_ONNX_PEAK_RSS_MB} MB) "
        f"{verdict(rss_ok)}; query embedding p50 {run['query_embedding']['p50_ms']:.2f} ms "
        f"(target ≤ {be.TARGET_QUERY_EMBED_P50_MS} ms) {verdict(p50_ok)}",
        highlight=False,
    )


def search_during_ingest(
    directory: Annotated[
        Path, typer.Argument(help="Corpus to index while searching (into throwaway components).")
    ],
    qa: Annotated[
        Path | None, typer.Option(help="QA file whose questions come first among the queries.")
    ] = None,
    queries: Annotated[
        int, typer.Option(help="Distinct queries timed while idle (and cycled during).")
    ] = 200,
    json_out: Annotated[Path | None, typer.Option("--json-out")] = None,
) -> None:
    """search_docs p50/p95 idle vs while this process indexes DIRECTORY (as an upload does)."""
    if not directory.is_dir():
        skip(f"corpus folder {directory} not found (the shared data is not on this machine?).")
    from docsassistant.bench import embedders as be

    with friendly_errors():
        r = be.bench_search_during_ingest(
            directory, queries=queries, qa_path=qa, log=lambda msg: console.print(msg, highlight=False)
        )
    table = Table(title=f"search_docs while idle and during an ingest ({r['embedder']} embedder)")
    for col in ("case", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"):
        table.add_column(col)
    for case in ("idle_before", "during_ingest", "idle_after", "idle"):
        s = r[case]
        table.add_row(
            "idle (both windows)" if case == "idle" else case.replace("_", " "),
            str(s["n"]),
            fmt(s["p50_ms"], 2),
            fmt(s["p95_ms"], 2),
            fmt(s["p99_ms"], 2),
            fmt(s["max_ms"], 2),
        )
    console.print(table)
    ratio = r["p95_ratio"]
    console.print(
        f"p95 during / idle: {fmt(ratio)} (target ≤ {be.TARGET_DURING_INGEST_P95_RATIO}) "
        f"{verdict(None if ratio is None else ratio <= be.TARGET_DURING_INGEST_P95_RATIO)} "
        f"(against the window before alone: {fmt(r['p95_ratio_vs_idle_before'])}); "
        f"the ingest took {fmt(r['ingest_s'], 1)} s for {r['ingest_chunks']} chunks "
        f"({fmt(r['ingest_waited_s'], 2)} s of it waiting for searches); "
        f"load average at the end {r['load_average_end']}.",
        highlight=False,
    )
    write_json(json_out, r)


def register(bench_app: typer.Typer) -> None:
    bench_app.command("search-during-ingest")(search_during_ingest)
