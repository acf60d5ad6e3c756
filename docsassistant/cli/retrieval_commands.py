"""Retrievers side by side (`eval search --compare`), the fusion grid (`eval tune-fusion`)
and a scratch store grown to N chunks for latency at scale (`bench inflate` / `deflate`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from docsassistant.cli.errors import friendly_errors
from docsassistant.config import get_settings

console = Console()
QA_COLUMNS = ("single_hit", "paraphrase_hit", "multi_all_found", "mrr", "evidence")


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def compare_qa(questions: list, configs: tuple, title: str) -> dict:
    """Print and return the QA metrics of each configuration on these questions."""
    from docsassistant import compare_retrievers as cr

    collected = cr.collect([(q.question, q.component) for q in questions])
    rows = {c.name: cr.qa_metrics(questions, collected, c) for c in configs}
    first = next(iter(rows.values()))
    table = Table(
        title=f"{title}: {first['single_n']} single ({first['paraphrase_n']} paraphrases), {first['multi_n']} multi"
    )
    for col in ("retriever", "single hit@5", "paraphrase hit@5", "multi all-found@10", "MRR@5", "evidence@5"):
        table.add_column(col)
    for name, m in rows.items():
        table.add_row(name, *(_f(m[c]) for c in QA_COLUMNS))
    console.print(table)
    _print_targets(rows)
    return rows


# Issue 8's targets for the fused search, and "hybrid ≥ dense-only" on every figure.
QA_TARGETS = {"single_hit": 0.92, "paraphrase_hit": 0.80, "multi_all_found": 0.85}
BEIR_TARGETS = {"beir-musique_sample100": 0.68, "beir-hotpotqa_sample100": 0.80}


def _verdict(ok: bool) -> str:
    return "[green]met[/]" if ok else "[red]not met[/]"


def _print_targets(rows: dict) -> None:
    hybrid, dense = rows.get("hybrid"), rows.get("dense")
    if not hybrid or not dense:
        return
    for key, target in QA_TARGETS.items():
        value, base = hybrid[key], dense[key]
        if value is None:
            continue
        console.print(
            f"hybrid {key} {value:.3f}: target ≥ {target} {_verdict(value >= target)}; "
            f"≥ dense-only ({base:.3f}) {_verdict(value >= base)}",
            highlight=False,
        )


def compare_beir(data, component: str, configs: tuple, k: int = 5) -> dict:
    """Print and return nDCG@10 / recall@k per configuration on the dev half, test half and all."""
    from docsassistant import compare_retrievers as cr

    qids = [q for q in data.qrels if q in data.queries]
    collected = dict(zip(qids, cr.collect([(data.queries[q], component) for q in qids]), strict=True))
    halves = {**cr.beir_split(qids), "all": qids}
    out: dict = {}
    table = Table(title=f"BEIR {component}: nDCG@10 / recall@{k} (dev = even, test = odd query ids, sorted)")
    table.add_column("retriever")
    for half, ids in halves.items():
        table.add_column(f"{half} ({len(ids)})")
    for c in configs:
        out[c.name] = {
            h: cr.beir_metrics(data, ids, [collected[q] for q in ids], c, k) for h, ids in halves.items()
        }
        table.add_row(c.name, *(f"{m['ndcg@10']:.4f} / {m[f'recall@{k}']:.4f}" for m in out[c.name].values()))
    console.print(table)
    if "hybrid" in out and "dense" in out:
        value, base = out["hybrid"]["all"]["ndcg@10"], out["dense"]["all"]["ndcg@10"]
        target = BEIR_TARGETS.get(component)
        verdict = f"target ≥ {target} {_verdict(value >= target)}; " if target else ""
        console.print(
            f"hybrid nDCG@10 {value:.4f} (all): {verdict}≥ dense-only ({base:.4f}) {_verdict(value >= base)}",
            highlight=False,
        )
    return out


def tune_fusion(
    qa: Annotated[Path, typer.Option(help="Docs QA file with a `split` field (dev|test).")],
    beir: Annotated[
        list[Path] | None, typer.Option(help="BEIR folders already indexed (repeatable).")
    ] = None,
    top: Annotated[int, typer.Option(help="Grid rows to print.")] = 12,
    json_out: Annotated[Path | None, typer.Option("--json-out")] = None,
) -> None:
    """Choose fusion weights on the dev split (QA dev + BEIR dev halves), confirm on test."""
    from docsassistant import beir_eval, evaluation
    from docsassistant import compare_retrievers as cr
    from docsassistant.fusion_grid import grid, objective

    with friendly_errors():
        questions = evaluation.load_qa(qa)
        sets: dict[str, dict] = {}
        for split in ("dev", "test"):
            chosen = [q for q in questions if q.split == split]
            sets[f"qa-{split}"] = {
                "questions": chosen,
                "lists": cr.collect([(q.question, q.component) for q in chosen]),
            }
        for folder in beir or []:
            data = beir_eval.load_beir(folder)
            component = beir_eval.beir_component(folder)
            if not cr.store_has_component(component):
                console.print(f"{component} is not indexed: run `eval search --beir {folder}` first.")
                raise typer.Exit(2)
            qids = [q for q in data.qrels if q in data.queries]
            lists = dict(zip(qids, cr.collect([(data.queries[q], component) for q in qids]), strict=True))
            for split, ids in cr.beir_split(qids).items():
                sets[f"{component}-{split}"] = {"data": data, "qids": ids, "lists": [lists[q] for q in ids]}
    scored = []
    for config in grid():
        figures = {name: _set_figures(s, config) for name, s in sets.items()}
        scored.append((objective(figures, "dev"), config, figures))
    scored.sort(key=lambda item: -item[0])
    dense = next(s for s in scored if dict(s[1].weights) == {"dense": 1.0} and s[1].decay == 1)
    table = Table(title="Fusion grid, ranked by the dev objective (mean of the dev figures)")
    for col in ("config", "dev objective", "test objective", *sets):
        table.add_column(col)
    for value, config, figures in [*scored[:top], dense]:
        table.add_row(
            config.name,
            f"{value:.4f}",
            f"{objective(figures, 'test'):.4f}",
            *(" / ".join(f"{v:.3f}" if v is not None else "—" for v in f.values()) for f in figures.values()),
        )
    console.print(table)
    console.print(
        "Per set: QA = single hit@5 / paraphrase hit@5 / multi all-found@10; BEIR = nDCG@10.", highlight=False
    )
    if json_out:
        rows = [
            {"config": c.name, "dev": v, "test": objective(f, "test"), "figures": f} for v, c, f in scored
        ]
        json_out.write_text(json.dumps(rows, indent=2), encoding="utf-8")


def _set_figures(s: dict, config) -> dict[str, float | None]:
    from docsassistant import compare_retrievers as cr

    if "questions" in s:
        m = cr.qa_metrics(s["questions"], s["lists"], config)
        return {k: m[k] for k in ("single_hit", "paraphrase_hit", "multi_all_found")}
    return {"ndcg@10": cr.beir_metrics(s["data"], s["qids"], s["lists"], config)["ndcg@10"]}


def small_to_big(
    qa: Annotated[Path, typer.Option(help="Docs QA file (evidence strings are what is measured).")],
    budgets: Annotated[
        str, typer.Option(help="Comma-separated character budgets per hit.")
    ] = "0,400,800,1500",
    k: Annotated[int, typer.Option("-k", help="Hits per question.")] = 5,
) -> None:
    """Evidence@k of the fused search with each small-to-big budget, per split."""
    from docsassistant import compare_retrievers as cr
    from docsassistant import evaluation

    with friendly_errors():
        questions = evaluation.load_qa(qa)
        sizes = [int(b) for b in budgets.split(",")]
        table = Table(title=f"Small-to-big: evidence@{k} (answerable questions) and characters per {k} hits")
        table.add_column("split")
        for size in sizes:
            table.add_column(f"budget {size}")
        for split in sorted({q.split or "all" for q in questions}):
            chosen = [q for q in questions if (q.split or "all") == split]
            lists = cr.collect([(q.question, q.component) for q in chosen])
            cells = []
            for size in sizes:
                m = cr.evidence_with_widening(chosen, lists, cr.SHIPPED, size, k)
                cells.append(f"{_f(m['evidence'])} ({m['chars']:.0f} chars)")
            table.add_row(f"{split} ({len(chosen)})", *cells)
    console.print(table)


def inflate(
    chunks: Annotated[int, typer.Argument(help="Grow the store to about this many chunks.")],
    sigma: Annotated[float, typer.Option(help="Per-dimension noise on the copied embeddings.")] = 0.04,
) -> None:
    """Add synthetic copies of the store's chunks (ONLY on a scratch copy of a store)."""
    from docsassistant.bench.scale import inflate_store

    settings = get_settings()
    console.print(
        f"Inflating the store in {settings.data_dir} (use a scratch copy: this adds synthetic components)."
    )
    with friendly_errors():
        r = inflate_store(
            chunks, sigma=sigma, settings=settings, log=lambda m: console.print(m, highlight=False)
        )
    console.print(
        f"{r['chunks']} chunks ({r['real_chunks']} real); insert + BM25 triggers {r['insert_s']:.1f} s, "
        f"HNSW build {r['hnsw_build_s']:.1f} s.",
        highlight=False,
    )


def deflate() -> None:
    """Remove the synthetic components added by `bench inflate`."""
    from docsassistant.bench.scale import deflate_store

    with friendly_errors():
        console.print(f"Removed {deflate_store()} synthetic documents.")


def add_commands(eval_app: typer.Typer, bench_app: typer.Typer) -> None:
    eval_app.command("tune-fusion")(tune_fusion)
    eval_app.command("small-to-big")(small_to_big)
    bench_app.command("inflate")(inflate)
    bench_app.command("deflate")(deflate)
