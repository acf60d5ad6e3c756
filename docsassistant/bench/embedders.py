"""Embedder benchmarks: torch vs ONNX ingestion from one command, and search latency while
an ingest runs in the same process (as an upload does in the app).

These print figures; they are not tests.

* `compare_ingest` runs `bench ingest` once per embedder, each in a child process on its
  own throwaway embedded store, so each figure (throughput, peak RSS, query embedding
  latency) belongs to that embedder alone.
* `bench_search_during_ingest` times `search_docs` on the store while idle, again while a
  thread of the same process indexes a corpus into throwaway components, and idle once more
  after it; every window paces its searches alike.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from docsassistant.bench.measure import latency_summary, load_average, machine
from docsassistant.bench.search import PACED_PAUSE_S, choose_queries
from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import component_folders, settings_summary
from docsassistant.ingest import index_paths, validate_component

TARGET_ONNX_SPEEDUP = 1.5
TARGET_ONNX_PEAK_RSS_MB = 1024
TARGET_QUERY_EMBED_P50_MS = 5.0
TARGET_DURING_INGEST_P95_RATIO = 2.0


def compare_ingest(
    corpus_dir: Path | str,
    embedders: list[str],
    *,
    embed_only: bool = False,
    log: Callable[[str], None] | None = None,
) -> dict:
    """`bench ingest` per embedder in a child process with a fresh embedded store each."""
    say = log or (lambda _msg: None)
    runs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="docsassistant-bench-") as scratch:
        for backend in embedders:
            out = Path(scratch) / f"{backend}.json"
            env = {
                **os.environ,
                "DOCSASSISTANT_EMBEDDER": backend,
                "DOCSASSISTANT_DATA_DIR": str(Path(scratch) / backend),
            }
            env.pop("DATABASE_URL", None)  # each embedder gets a store of its own
            cmd = [sys.executable, "-m", "docsassistant", "bench", "ingest", str(corpus_dir)]
            cmd += ["--embedders", backend, "--json-out", str(out)]
            cmd += [] if embed_only else ["--no-embed-only"]
            say(f"Ingesting with the {backend} embedder in a child process…")
            child = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if child.returncode != 0 or not out.is_file():
                raise RuntimeError(f"bench ingest with {backend} failed:\n{child.stdout}\n{child.stderr}")
            runs[backend] = json.loads(out.read_text())
            _stop_server(env)
    result: dict = {"corpus": str(corpus_dir), "runs": runs}
    for run in runs.values():
        # Wall time suffers from other work on a shared machine; CPU time much less so.
        run["chunks_per_cpu_s"] = run["chunks"] / run["ingest_cpu_s"] if run["ingest_cpu_s"] else None
    result.update(speedups(runs))
    return result


def speedups(runs: dict[str, dict]) -> dict[str, float | None]:
    """Each ONNX run's throughput over torch's, wall and per CPU-second (`onnx_speedup`,
    `onnx_speedup_cpu`, `onnx_int8_speedup`, …); nothing without a torch run."""
    out: dict[str, float | None] = {}
    torch_run = runs.get("torch")
    for name, run in runs.items():
        if torch_run is None or name == "torch":
            continue
        key = name.replace("-", "_")
        out[f"{key}_speedup"] = run["chunks_per_s"] / torch_run["chunks_per_s"]
        torch_cpu, onnx_cpu = torch_run["chunks_per_cpu_s"], run["chunks_per_cpu_s"]
        out[f"{key}_speedup_cpu"] = onnx_cpu / torch_cpu if onnx_cpu and torch_cpu else None
    return out


def _stop_server(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "docsassistant", "db", "down"], env=env, capture_output=True, text=True
    )


def query_embedding_latency(texts: list[str], settings: Settings, warmup: int = 20) -> dict:
    """p50/p95 of `embed_query` over distinct texts, after a warm-up on the first of them."""
    from docsassistant.embeddings import get_embedder

    embedder = get_embedder(settings)
    for text in texts[:warmup]:
        embedder.embed_query(text)
    samples = []
    for text in texts:
        start = time.perf_counter()
        embedder.embed_query(text)
        samples.append((time.perf_counter() - start) * 1000)
    return latency_summary(samples)


def bench_search_during_ingest(
    corpus_dir: Path | str,
    *,
    queries: int = 200,
    qa_path: Path | str | None = None,
    settings: Settings | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """`search_docs` latency idle, while this process indexes `corpus_dir`, and idle again.

    The idle p95 alone varies by more than half from run to run, so the ratio is taken
    against both idle windows pooled, each paced like the searches during the ingest.
    """
    from docsassistant.documents import delete_component
    from docsassistant.foreground import FOREGROUND
    from docsassistant.search import list_components, search_docs
    from docsassistant.store import open_store
    from docsassistant.warm_up import start_warm_up

    settings = settings or get_settings()
    say = log or (lambda _msg: None)
    open_store(settings)
    known = set(list_components(settings))
    if not known:
        raise ValueError("The store is empty: ingest documents first, then measure search during an ingest.")
    folders = component_folders(Path(corpus_dir))
    if not folders:
        raise ValueError(f"{corpus_dir} has no top-level folders to index as components.")
    prefix = f"bench-{secrets.token_hex(3)}-"
    components = {folder: validate_component(f"{prefix}{folder}") for folder in folders}
    chosen, warm, _ = choose_queries(settings, queries, qa_path, 20, known)

    def search(query: str, component: str | None) -> float:
        start = time.perf_counter()
        search_docs(query, component, 5, settings=settings)
        elapsed = (time.perf_counter() - start) * 1000
        time.sleep(PACED_PAUSE_S)  # in every window: a user, not a load generator
        return elapsed

    say(f"Warming up as the app does at start, then timing {len(chosen)} searches while idle…")
    start_warm_up().join()  # the model, igraph and spaCy's tokenizer, as a running app has them
    for query, component in warm:
        search(query, component)
    # Alternate unfiltered and filtered searches, as the agent does.
    plan = [(q, c if i % 2 else None) for i, (q, c) in enumerate(chosen)]
    idle_before = [search(q, c) for q, c in plan]

    say("Timing searches while the corpus is indexed in a background thread…")
    report: dict = {}

    def ingest() -> None:
        start = time.perf_counter()
        chunks = 0
        for folder, component in components.items():
            result = index_paths([Path(corpus_dir) / folder], component, base=corpus_dir, settings=settings)
            chunks += sum(r.chunks for r in result.results)
        report.update(ingest_s=time.perf_counter() - start, chunks=chunks)

    worker = threading.Thread(target=ingest, name="bench-ingest")
    waited_before = FOREGROUND.waited_s
    during: list[float] = []
    try:
        worker.start()
        while worker.is_alive():
            query, component = plan[len(during) % len(plan)]
            during.append(search(query, component))
        worker.join()
        say("Timing the same searches idle again…")
        idle_after = [search(q, c) for q, c in plan]
    finally:
        worker.join()
        for component in components.values():
            delete_component(component, settings=settings)
    idle_summary, during_summary = latency_summary(idle_before + idle_after), latency_summary(during)
    before_summary = latency_summary(idle_before)

    def ratio(idle: dict) -> float | None:
        return during_summary["p95_ms"] / idle["p95_ms"] if during and idle["p95_ms"] else None

    return {
        "corpus": str(corpus_dir),
        "embedder": settings.embedder,
        "idle": idle_summary,
        "idle_before": before_summary,
        "idle_after": latency_summary(idle_after),
        "during_ingest": during_summary,
        "p95_ratio": ratio(idle_summary),
        "p95_ratio_vs_idle_before": ratio(before_summary),
        "ingest_s": report.get("ingest_s"),
        "ingest_chunks": report.get("chunks"),
        "ingest_waited_s": FOREGROUND.waited_s - waited_before,  # its steps waiting for searches
        "load_average_end": load_average(),
        "machine": machine(),
        "settings": settings_summary(settings),
    }
