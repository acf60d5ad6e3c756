"""Benchmarks: ingestion throughput and overhead, search latency, HNSW at scale.

These print figures; they are not tests. Each function returns a plain dict (the CLI
prints it as a table and can write it as JSON).

* `bench_ingest` indexes a corpus into fresh components, times the whole pipeline,
  re-embeds exactly the same texts (same groups, same batch size) with the model alone,
  re-ingests the unchanged corpus, and reads the process's peak RSS.
* `bench_search` times warm `search_docs` calls (query embedding included) over the
  indexed store, without and with a component filter, then dense-only, text-only and
  the query embedding alone (to see where the time goes), and the recall of the real
  HNSW index against exact ranking (read-only).
* `bench_synthetic` builds a separate `bench_chunks` table of N vectors derived from the
  store's real embeddings, builds HNSW on it, and measures ANN latency and recall@10
  against exact search. It never touches the real `chunks` table and drops its own.
"""

from __future__ import annotations

import os
import platform
import random
import re
import resource
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import component_folders, load_qa, percentile, settings_summary
from docsassistant.ingest import ProgressCallback, index_paths, validate_component

# Targets from the performance brief (docs/performance.md).
TARGET_EMBED_RATIO = 1.15
TARGET_REINGEST_SHARE = 0.05
TARGET_PEAK_RSS_MB = 1536
TARGET_P50_MS = 10.0  # search_docs on the 6.4k-chunk store (issue 8)
TARGET_P95_MS = 25.0
TARGET_P95_MS_AT_SCALE = 50.0  # at 100k chunks (`bench inflate 100000`)
SCALE_CHUNKS = 50_000  # from this store size on, the at-scale target applies
TARGET_ANN_P95_MS = 50.0
TARGET_ANN_RECALL = 0.95
BENCH_TABLE = "bench_chunks"


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "processor": platform.processor() or platform.machine(),
    }


def cpu_seconds() -> float:
    """User + system CPU time of this process so far (all its threads, torch's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _proc_cpu_s(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU seconds of a process from /proc; (0, 0) if unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def server_cpu_seconds(settings: Settings) -> float | None:
    """CPU seconds used so far by the embedded PostgreSQL (postmaster, its live and reaped
    children); None with DATABASE_URL or off Linux."""
    pid_file = settings.pg_dir / "postmaster.pid"
    if settings.database_url or not pid_file.is_file() or not Path("/proc").is_dir():
        return None
    try:
        postmaster = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    own, reaped = _proc_cpu_s(postmaster)
    total = own + reaped
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == postmaster:
            total += _proc_cpu_s(int(stat.parent.name))[0]
    return total


def machine_busy_seconds() -> float | None:
    """CPU seconds all processes on the machine have been busy (from /proc/stat), summed over CPUs."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """Wall time, this process's CPU, the embedded server's CPU and the whole machine's busy
    CPU over a block: whatever remains of the machine's busy time was other work."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.figures: dict[str, float | None] = {}

    def __enter__(self) -> CpuMeter:
        self._start = (
            time.perf_counter(),
            cpu_seconds(),
            server_cpu_seconds(self.settings),
            machine_busy_seconds(),
        )
        return self

    def __exit__(self, *exc: object) -> None:
        wall, own, server, busy = self._start
        end_server, end_busy = server_cpu_seconds(self.settings), machine_busy_seconds()
        self.figures = {
            "wall_s": time.perf_counter() - wall,
            "process_cpu_s": cpu_seconds() - own,
            "server_cpu_s": None if server is None or end_server is None else end_server - server,
            "machine_busy_cpu_s": None if busy is None or end_busy is None else end_busy - busy,
        }
        known = [self.figures["process_cpu_s"], self.figures["server_cpu_s"]]
        if self.figures["machine_busy_cpu_s"] is not None and None not in known:
            self.figures["other_cpu_s"] = self.figures["machine_busy_cpu_s"] - sum(known)


def load_average() -> list[float]:
    """1/5/15-minute load averages: other work on the machine skews wall times."""
    return [round(x, 2) for x in os.getloadavg()]


def set_torch_threads(threads: int | None) -> int | None:
    """Optionally change torch's intra-op thread count (a benchmark knob); return the count in
    use, or None when torch is not loaded (the ONNX embedder does not need it)."""
    if not threads and "torch" not in sys.modules:
        return None
    import torch

    if threads:
        torch.set_num_threads(threads)
    return int(torch.get_num_threads())


def peak_rss_mb() -> float:
    """This process's peak resident set size (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latency_summary(samples_ms: list[float]) -> dict:
    return {
        "n": len(samples_ms),
        "p50_ms": percentile(samples_ms, 50),
        "p95_ms": percentile(samples_ms, 95),
        "p99_ms": percentile(samples_ms, 99),
        "mean_ms": float(np.mean(samples_ms)) if samples_ms else None,
        "max_ms": max(samples_ms) if samples_ms else None,
    }


# --------------------------------------------------------------------------- ingest


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
    from docsassistant.bench_embedders import query_embedding_latency
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


# --------------------------------------------------------------------------- search

_TEMPLATES = (
    "{leaf} in {title}",
    "How does {leaf} work in {title}?",
    "{title}: {leaf}",
    "What should I know about {leaf}?",
    "How do I configure {leaf} with {title}?",
)


def generated_queries(settings: Settings, n: int, seed: int = 0) -> list[tuple[str, str]]:
    """Distinct (query, component) pairs built from chunk titles and section headings."""
    from docsassistant.store import open_store

    engine = open_store(settings, check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT DISTINCT d.title, c.section, c.component FROM chunks c "
                "JOIN documents d ON d.id = c.document_id ORDER BY 3, 1, 2"
            )
        ).all()
    rng = random.Random(seed)
    rng.shuffle(rows)
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    for i, (title, section, component) in enumerate(rows):
        leaf = re.sub(r"\s+", " ", (section.split(" › ")[-1] if section else "") or "").strip()
        title = re.sub(r"\s+", " ", title).strip()
        if not leaf or leaf.lower() == title.lower():
            query = f"{title} overview"
        else:
            query = _TEMPLATES[i % len(_TEMPLATES)].format(leaf=leaf, title=title)
        if query.lower() not in seen:
            seen.add(query.lower())
            out.append((query, component))
        if len(out) >= n:
            break
    return out


def qa_queries(qa_path: Path | str) -> list[tuple[str, str | None]]:
    """The QA questions, with their component (or the first source's folder) for the filtered run."""
    out = []
    for q in load_qa(qa_path):
        component = q.component or (q.sources[0].split("/", 1)[0] if q.sources else None)
        out.append((q.question, component))
    return out


def choose_queries(
    settings: Settings, queries: int, qa_path: Path | str | None, warmup: int, known: set[str]
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], int]:
    """(timed queries, warm-up queries, how many came from the QA file): distinct, QA first."""
    chosen: list[tuple[str, str | None]] = []
    if qa_path is not None:
        chosen = list(qa_queries(qa_path))[:queries]
    from_qa = len(chosen)
    extra = generated_queries(settings, queries - from_qa + warmup + len(chosen))
    taken = {q.lower() for q, _ in chosen}
    extra = [(q, c) for q, c in extra if q.lower() not in taken]
    warm = extra[:warmup]
    chosen += extra[warmup : warmup + queries - from_qa]
    default_component = sorted(known)[0]
    return [(q, c if c in known else default_component) for q, c in chosen], warm, from_qa


# A user's searches come seconds apart, not back to back: paced timings leave this gap
# between searches (0.9-4.5 ms slower at p50 than back to back here, 2026-12-02).
PACED_PAUSE_S = 0.05


def bench_search(
    *,
    queries: int = 200,
    qa_path: Path | str | None = None,
    warmup: int = 20,
    torch_threads: int | None = None,
    settings: Settings | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """Warm `search_docs` latency (query embedding included), without and with a filter."""
    from docsassistant.embeddings import get_embedder
    from docsassistant.search import list_components, search_docs
    from docsassistant.store import open_store

    settings = settings or get_settings()
    say = log or (lambda _msg: None)
    engine = open_store(settings)
    known = set(list_components(settings))
    if not known:
        raise ValueError(
            "The store is empty: ingest documents first (e.g. `docsassistant eval search --corpus`)."
        )
    with engine.connect() as conn:
        store_chunks = int(conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar_one())

    chosen, warm, from_qa = choose_queries(settings, queries, qa_path, warmup, known)

    load_start = load_average()
    say(f"Warming up with {len(warm)} queries…")
    embedder = get_embedder(settings)
    threads = set_torch_threads(torch_threads)
    for query, component in warm:
        search_docs(query, None, 5, settings=settings)
        search_docs(query, component, 5, settings=settings)

    def timed(filtered: bool, mode: str = "hybrid", pause_s: float = 0.0) -> list[float]:
        samples = []
        for query, component in chosen:
            start = time.perf_counter()
            search_docs(query, component if filtered else None, 5, mode=mode, settings=settings)
            samples.append((time.perf_counter() - start) * 1000)
            time.sleep(pause_s)
        return samples

    say(f"Timing {len(chosen)} queries without a filter…")
    unfiltered = timed(False)
    say("…with a component filter…")
    filtered = timed(True)
    say("…dense only and BM25 + identifiers only (no filter), to see where the time goes…")
    dense_only = timed(False, "dense")
    text_only = timed(False, "text")
    say(f"…no filter again, {PACED_PAUSE_S * 1000:.0f} ms apart (back to back flatters the caches)…")
    paced = timed(False, pause_s=PACED_PAUSE_S)
    say("…and the query embedding alone.")
    embed_samples = []
    for query, _ in chosen:
        start = time.perf_counter()
        embedder.embed_query(query)
        embed_samples.append((time.perf_counter() - start) * 1000)
    say("HNSW recall on the real store (exact = numpy over every chunk embedding)…")
    store_hnsw = _store_hnsw_recall(
        settings, embedder.embed_documents([q for q, _ in chosen]), ef_values=(40, 100, 200)
    )
    return {
        "load_average_start": load_start,
        "load_average_end": load_average(),
        "torch_threads": threads,
        "store_chunks": store_chunks,
        "components": sorted(known),
        "queries": len(chosen),
        "queries_from_qa": from_qa,
        "queries_generated": len(chosen) - from_qa,
        "warmup_queries": len(warm),
        "k": 5,
        "unfiltered": latency_summary(unfiltered),
        "filtered": latency_summary(filtered),
        "embed_query_only": latency_summary(embed_samples),
        "dense_only": latency_summary(dense_only),
        "text_only": latency_summary(text_only),
        "unfiltered_paced": latency_summary(paced),
        "paced_pause_s": PACED_PAUSE_S,
        "store_hnsw": store_hnsw,
        "query_texts": [q for q, _ in chosen],
        "samples": [
            {"query": q, "component": c, "unfiltered_ms": u, "filtered_ms": f, "dense_ms": d, "text_ms": t}
            for (q, c), u, f, d, t in zip(chosen, unfiltered, filtered, dense_only, text_only, strict=True)
        ],
        "machine": machine(),
        "settings": settings_summary(settings),
    }


def _store_hnsw_recall(settings: Settings, query_vectors: np.ndarray, ef_values: tuple[int, ...]) -> dict:
    """Recall of the real `chunks` HNSW index (read-only) for the candidate list search.py
    fetches (LIMIT CANDIDATES), against exact cosine ranking computed in numpy."""
    from docsassistant.search import CANDIDATES

    with _pg_connect(settings) as conn:
        # Canonical chunks: the ones in the (partial) index, one per distinct vector.
        rows = conn.execute("SELECT id, embedding FROM chunks WHERE canonical ORDER BY id").fetchall()
        ids = np.array([r[0] for r in rows])
        matrix = np.stack([r[1].to_numpy() for r in rows]).astype(np.float32)
        sql = f"SELECT id FROM chunks WHERE canonical ORDER BY embedding <=> %s::vector LIMIT {CANDIDATES}"
        out: dict = {"chunks": len(ids), "limit": CANDIDATES}
        truths = [ids[np.argsort(-(matrix @ q), kind="stable")[:CANDIDATES]] for q in query_vectors]
        for ef in ef_values:
            r10, r50, ms = [], [], []
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                conn.execute("SET LOCAL enable_seqscan = off")
                for q, truth in zip(query_vectors, truths, strict=True):
                    start = time.perf_counter()
                    got = [r[0] for r in conn.execute(sql, (_literal(q),))]
                    ms.append((time.perf_counter() - start) * 1000)
                    r10.append(len(set(got[:10]) & set(truth[:10].tolist())) / len(truth[:10]))
                    r50.append(len(set(got) & set(truth.tolist())) / len(truth))
            out[str(ef)] = {
                "recall_at_10": float(np.mean(r10)),
                "recall_at_10_min": float(np.min(r10)),
                f"recall_at_{CANDIDATES}": float(np.mean(r50)),
                "p50_ms": percentile(ms, 50),
                "p95_ms": percentile(ms, 95),
            }
    return out


# --------------------------------------------------------------------------- synthetic HNSW


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (rows / norms).astype(np.float32)


def synthetic_vectors(base: np.ndarray, n: int, sigma: float, seed: int = 0) -> np.ndarray:
    """`n` unit vectors: random rows of `base` plus Gaussian noise (per dimension), re-normalised."""
    rng = np.random.default_rng(seed)
    dim = base.shape[1]
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 10_000):
        stop = min(start + 10_000, n)
        picks = base[rng.integers(0, len(base), stop - start)]
        noise = rng.normal(0.0, sigma, (stop - start, dim)).astype(np.float32)
        out[start:stop] = _unit(picks + noise)
    return out


def clustered_vectors(
    n: int, dim: int, clusters: int = 500, spread: float = 0.05, seed: int = 0
) -> np.ndarray:
    """Fallback when the store is empty: Gaussian clusters around random unit centres."""
    rng = np.random.default_rng(seed)
    centres = _unit(rng.normal(size=(clusters, dim)))
    return synthetic_vectors(centres, n, spread, seed + 1)


def _pg_connect(settings: Settings):
    import psycopg
    from pgvector.psycopg import register_vector

    from docsassistant.db import libpq_uri

    # No automatic prepared statements: a generic plan cached under one setting would
    # otherwise be reused under the next, and EXPLAIN would not show what ran.
    conn = psycopg.connect(libpq_uri(settings), autocommit=True, prepare_threshold=None)
    register_vector(conn)
    return conn


def _literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


def bench_synthetic(
    n: int,
    *,
    query_vectors: np.ndarray | None = None,
    n_queries: int = 200,
    sigma: float = 0.04,
    ef_values: tuple[int, ...] = (40, 100, 200),
    limit: int = 50,
    maintenance_work_mem: str = "1GB",
    m: int | None = None,
    ef_construction: int | None = None,
    settings: Settings | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """HNSW build time, ANN latency and recall@10 vs exact search on N synthetic vectors.

    Each ANN query fetches `limit` rows (what search.py asks for: CANDIDATES = 50) and
    recall@10 compares its first 10 with the exact first 10.
    """
    from docsassistant.search import EF_SEARCH
    from docsassistant.store import open_store

    settings = settings or get_settings()
    say = log or (lambda _msg: None)
    open_store(settings)  # migrated, same model
    with _pg_connect(settings) as conn:
        base_rows = [r[0].to_numpy() for r in conn.execute("SELECT embedding FROM chunks ORDER BY id")]
    if base_rows:
        base = np.stack(base_rows).astype(np.float32)
        dim = int(base.shape[1])
        say(f"Generating {n} vectors from {len(base)} real chunk embeddings (+ N(0, {sigma}²) noise)…")
        vectors = synthetic_vectors(base, n, sigma)
        source = f"{len(base)} real chunk embeddings + Gaussian noise sigma={sigma}, re-normalised"
    else:
        dim = 384
        say(f"The store is empty: generating {n} clustered vectors…")
        vectors = clustered_vectors(n, dim)
        source = "500 Gaussian clusters around random unit centres (store empty)"
    if query_vectors is None or len(query_vectors) == 0:
        rng = np.random.default_rng(7)
        picks = vectors[rng.integers(0, n, n_queries)]
        query_vectors = _unit(picks + rng.normal(0, sigma, picks.shape).astype(np.float32))
        query_source = "held-out noisy variants of table vectors"
    else:
        query_source = "real query embeddings (the latency benchmark's queries)"
    query_vectors = np.asarray(query_vectors[:n_queries], dtype=np.float32)
    literals = [_literal(q) for q in query_vectors]

    result: dict = {
        "n": n,
        "dim": dim,
        "vectors": source,
        "queries": len(literals),
        "query_vectors": query_source,
        "limit": limit,
        "search_py_ef_search": EF_SEARCH,
        "maintenance_work_mem": maintenance_work_mem,
        "machine": machine(),
        "load_average_start": load_average(),
    }
    with _pg_connect(settings) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {BENCH_TABLE}")
        try:
            conn.execute(
                f"CREATE TABLE {BENCH_TABLE} (id bigint PRIMARY KEY, embedding vector({dim}) NOT NULL)"
            )
            say(f"Loading {n} vectors into {BENCH_TABLE}…")
            start = time.perf_counter()
            with (
                conn.cursor() as cur,
                cur.copy(f"COPY {BENCH_TABLE} (id, embedding) FROM STDIN WITH (FORMAT BINARY)") as copy,
            ):
                copy.set_types(["int8", "vector"])
                for i, vec in enumerate(vectors):
                    copy.write_row((i, vec))
            result["load_s"] = time.perf_counter() - start
            conn.execute(f"VACUUM ANALYZE {BENCH_TABLE}")
            workers = conn.execute("SHOW max_parallel_maintenance_workers").fetchone()[0]
            say(f"Building HNSW (maintenance_work_mem={maintenance_work_mem}, {workers} parallel workers)…")
            conn.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
            start = time.perf_counter()
            options = {"m": m, "ef_construction": ef_construction}
            with_clause = ", ".join(f"{k} = {int(v)}" for k, v in options.items() if v)
            conn.execute(
                f"CREATE INDEX {BENCH_TABLE}_hnsw ON {BENCH_TABLE} USING hnsw (embedding vector_cosine_ops)"
                + (f" WITH ({with_clause})" if with_clause else "")
            )
            result["hnsw_options"] = with_clause or "defaults (m = 16, ef_construction = 64)"
            result["build_s"] = time.perf_counter() - start
            result["parallel_maintenance_workers"] = int(workers)
            result["index_mb"] = (
                conn.execute(f"SELECT pg_relation_size('{BENCH_TABLE}_hnsw')").fetchone()[0] / 2**20
            )
            result["table_mb"] = conn.execute(f"SELECT pg_table_size('{BENCH_TABLE}')").fetchone()[0] / 2**20
            conn.execute("RESET maintenance_work_mem")

            ann_sql = f"SELECT id FROM {BENCH_TABLE} ORDER BY embedding <=> %s::vector LIMIT {limit}"
            say(f"Exact top-10 for {len(literals)} queries (sequential scan)…")
            exact: list[list[int]] = []
            exact_ms: list[float] = []
            with conn.transaction():
                conn.execute("SET LOCAL enable_indexscan = off")
                conn.execute("SET LOCAL enable_bitmapscan = off")
                plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + ann_sql, (literals[0],)))
                if "hnsw" in plan.lower():
                    raise RuntimeError(f"exact search still uses the index:\n{plan}")
                for lit in literals:
                    start = time.perf_counter()
                    rows = conn.execute(ann_sql.replace(f"LIMIT {limit}", "LIMIT 10"), (lit,)).fetchall()
                    exact_ms.append((time.perf_counter() - start) * 1000)
                    exact.append([r[0] for r in rows])
            result["exact"] = latency_summary(exact_ms)
            # Cross-check the SQL ground truth with numpy on the same float32 vectors.
            agree = []
            for q, truth in zip(query_vectors, exact, strict=True):
                top = np.argsort(-(vectors @ q), kind="stable")[:10]
                agree.append(len(set(top.tolist()) & set(truth)) / 10)
            result["exact_vs_numpy_agreement"] = float(np.mean(agree))
            result["exact_vs_numpy_min"] = float(np.min(agree))

            result["ann"] = {}
            for ef in ef_values:
                say(f"ANN with hnsw.ef_search = {ef}…")
                with conn.transaction():
                    conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                    own = "\n".join(r[0] for r in conn.execute("EXPLAIN " + ann_sql, (literals[0],)))
                    # Measure the index itself even where the planner would rather scan.
                    conn.execute("SET LOCAL enable_seqscan = off")
                    plan = "\n".join(r[0] for r in conn.execute("EXPLAIN " + ann_sql, (literals[0],)))
                    for lit in literals[:20]:  # warm-up
                        conn.execute(ann_sql, (lit,)).fetchall()
                    samples: list[float] = []
                    recalls: list[float] = []
                    returned: list[int] = []
                    for lit, truth in zip(literals, exact, strict=True):
                        start = time.perf_counter()
                        rows = conn.execute(ann_sql, (lit,)).fetchall()
                        samples.append((time.perf_counter() - start) * 1000)
                        got = [r[0] for r in rows]
                        returned.append(len(got))
                        recalls.append(len(set(got[:10]) & set(truth)) / len(truth) if truth else 1.0)
                result["ann"][str(ef)] = {
                    **latency_summary(samples),
                    "recall_at_10": float(np.mean(recalls)),
                    "recall_at_10_min": float(np.min(recalls)),
                    "rows_returned_min": min(returned),
                    "uses_index": "hnsw" in plan.lower(),
                    "planner_picks_index": "hnsw" in own.lower(),
                }
        finally:
            conn.execute(f"DROP TABLE IF EXISTS {BENCH_TABLE}")
    result["load_average_end"] = load_average()
    return result


def query_embeddings(texts: list[str], settings: Settings | None = None) -> np.ndarray:
    from docsassistant.embeddings import get_embedder

    return get_embedder(settings or get_settings()).embed_documents(texts)
