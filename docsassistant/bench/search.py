"""`bench search`: warm `search_docs` latency over the indexed store (with and without a component
filter, dense-only, text-only, the query embedding alone) and the real HNSW index's recall."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from docsassistant.bench.measure import latency_summary, load_average, machine, set_torch_threads
from docsassistant.bench.synthetic import pg_connect, vector_literal
from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import load_qa, percentile, settings_summary

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

    with pg_connect(settings) as conn:
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
                    got = [r[0] for r in conn.execute(sql, (vector_literal(q),))]
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


def query_embeddings(texts: list[str], settings: Settings | None = None) -> np.ndarray:
    from docsassistant.embeddings import get_embedder

    return get_embedder(settings or get_settings()).embed_documents(texts)
