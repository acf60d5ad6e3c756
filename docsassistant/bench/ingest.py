"""`bench ingest`: index a corpus into fresh components, time the whole pipeline against the
embedding model alone on the same texts, re-ingest the unchanged corpus, read the peak RSS."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from docsassistant.bench.measure import (
    CpuMeter,
    cpu_seconds,
    load_average,
    machine,
    peak_rss_mb,
    set_torch_threads,
)
from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import component_folders, settings_summary
from docsassistant.ingest import ProgressCallback, index_paths, validate_component


class _RecordingEmbedder:
    """Wraps `embed_documents` on the process-wide embedder: records each call's texts and time."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder
        self.groups: list[list[str]] = []
        self.seconds = 0.0

    def __enter__(self) -> _RecordingEmbedder:
        original = self.embedder.embed_documents

        def recording(texts: list[str]):
            start = time.perf_counter()
            try:
                return original(texts)
            finally:
                self.seconds += time.perf_counter() - start
                self.groups.append(list(texts))

        self.embedder.embed_documents = recording  # instance attribute shadows the method
        return self

    def __exit__(self, *exc: object) -> None:
        del self.embedder.embed_documents


def _component_counts(engine: sa.Engine, components: list[str]) -> dict[str, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT component, count(*) FROM documents WHERE component = ANY(:c) GROUP BY 1"),
            {"c": components},
        ).all()
    return {r[0]: int(r[1]) for r in rows}


def bench_ingest(
    corpus_dir: Path | str,
    *,
    chunk_size: int | None = None,
    overlap: int | None = None,
    prefix: str | None = None,
    keep: bool = False,
    embed_only: bool = True,
    torch_threads: int | None = None,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """Measure ingestion of every top-level folder of `corpus_dir` into fresh components.

    Components are named `<prefix><folder>`; the default prefix is a random
    `bench-xxxxxx-`, and they are deleted afterwards unless `keep`. The model is loaded
    before the clock starts (its load time is reported on its own). `embed_only=False`
    skips (b), re-embedding the same texts with the model alone.
    """
    from docsassistant.bench.embedders import query_embedding_latency
    from docsassistant.documents import delete_component
    from docsassistant.embeddings import get_embedder
    from docsassistant.store import open_store

    settings = settings or get_settings()
    update = {}
    if chunk_size is not None:
        update["chunk_size"] = chunk_size
    if overlap is not None:
        update["chunk_overlap"] = overlap
    if update:
        settings = settings.model_copy(update=update)
    if not 0 <= settings.chunk_overlap < settings.chunk_size:
        raise ValueError(
            f"overlap must be at least 0 and below the chunk size "
            f"(got {settings.chunk_overlap} and {settings.chunk_size})."
        )
    say = log or (lambda _msg: None)
    corpus_dir = Path(corpus_dir)
    folders = component_folders(corpus_dir)
    if not folders:
        raise ValueError(f"{corpus_dir} has no top-level folders to index as components.")
    prefix = f"bench-{secrets.token_hex(3)}-" if prefix is None else prefix
    components = {folder: validate_component(f"{prefix}{folder}") for folder in folders}

    engine = open_store(settings)
    taken = _component_counts(engine, list(components.values()))
    if taken:
        raise ValueError(
            "Not a fresh run: the store already holds "
            + ", ".join(f"{c} ({n} documents)" for c, n in taken.items())
            + ". Use a fresh DOCSASSISTANT_DATA_DIR or another --prefix."
        )
    with engine.connect() as conn:
        chunks_before = int(conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar_one())

    say("Loading the embedding model…")
    start = time.perf_counter()
    embedder = get_embedder(settings)
    embedder.embed_documents(["warm-up"])
    model_load_s = time.perf_counter() - start
    threads = set_torch_threads(torch_threads)

    result: dict = {
        "corpus": str(corpus_dir),
        "components": list(components.values()),
        "settings": settings_summary(settings),
        "machine": machine(),
        "store_chunks_before": chunks_before,
        "embedder": embedder.identity,
        "model_load_s": model_load_s,
        "torch_threads": threads,
        "load_average_start": load_average(),
    }
    try:
        say("Ingesting (timed)…")
        reports = []
        with _RecordingEmbedder(embedder) as recorder, CpuMeter(settings) as meter_a:
            start, cpu_start = time.perf_counter(), cpu_seconds()
            for folder, component in components.items():
                reports.append(
                    index_paths(
                        [corpus_dir / folder],
                        component,
                        base=corpus_dir,
                        settings=settings,
                        progress=progress,
                    )
                )
            ingest_s = time.perf_counter() - start
            ingest_cpu_s = cpu_seconds() - cpu_start
        counts = {"added": 0, "updated": 0, "unchanged": 0, "failed": 0}
        for report in reports:
            for name, n in report.counts().items():
                if name in counts:
                    counts[name] += n
        chunks = sum(r.chunks for report in reports for r in report.results)
        if not chunks:
            # Nothing to time; every ratio below would divide by zero.
            raise ValueError(
                f"No chunks were indexed from {corpus_dir} (folders {', '.join(components)}). "
                "Check that it holds .md/.adoc/.html/.pdf/.docx files; symbolic links are not followed."
            )
        texts = sum(len(g) for g in recorder.groups)

        embed_only_s = embed_only_cpu_s = 0.0
        meter_b = CpuMeter(settings)
        if embed_only:
            say(f"Embedding the same {texts} texts with the model alone (timed)…")
            with meter_b:
                start, cpu_start = time.perf_counter(), cpu_seconds()
                for group in recorder.groups:
                    embedder.embed_documents(group)
                embed_only_s = time.perf_counter() - start
                embed_only_cpu_s = cpu_seconds() - cpu_start

        say("Timing query embeddings (the first line of each chunk text, distinct)…")
        headings = list(dict.fromkeys(t.split("\n", 1)[0][:200] for g in recorder.groups for t in g))
        query_embed = query_embedding_latency(headings[:200], settings)

        say("Re-ingesting the unchanged corpus (timed)…")
        start = time.perf_counter()
        again = [
            index_paths([corpus_dir / folder], component, base=corpus_dir, settings=settings)
            for folder, component in components.items()
        ]
        reingest_s = time.perf_counter() - start
        reingest_changed = sum(len(r.by_status("added")) + len(r.by_status("updated")) for r in again)
        result.update(
            {
                "files": sum(len(r.results) for r in reports),
                "files_by_status": counts,
                "failed": [
                    {"source_path": r.source_path, "reason": r.reason}
                    for report in reports
                    for r in report.by_status("failed")
                ],
                "chunks": chunks,
                "embedded_texts": texts,
                "embed_calls": len(recorder.groups),
                "ingest_s": ingest_s,
                "embed_in_pipeline_s": recorder.seconds,
                "embed_only_s": embed_only_s if embed_only else None,
                "ratio": ingest_s / embed_only_s if embed_only_s else None,
                "ingest_cpu_s": ingest_cpu_s,
                "embed_only_cpu_s": embed_only_cpu_s,
                "cpu_ratio": ingest_cpu_s / embed_only_cpu_s if embed_only_cpu_s else None,
                "cpu_accounting": {"ingest": meter_a.figures, "embed_only": meter_b.figures},
                "non_embedding_s": ingest_s - recorder.seconds,
                "reingest_s": reingest_s,
                "reingest_share": reingest_s / ingest_s if ingest_s else None,
                "reingest_changed_files": reingest_changed,
                "chunks_per_s": chunks / ingest_s if ingest_s else None,
                "files_per_s": sum(len(r.results) for r in reports) / ingest_s if ingest_s else None,
                "peak_rss_mb": peak_rss_mb(),
                "query_embedding": query_embed,
                "load_average_end": load_average(),
                "peak_rss_note": "this Python process (torch and the model included); "
                "the PostgreSQL server runs in separate processes",
            }
        )
    finally:
        if not keep:
            for component in components.values():
                delete_component(component, settings=settings)
    result["kept"] = keep
    return result
