"""`bench search --synthetic N`: a separate `bench_chunks` table of N vectors derived from the
store's real embeddings, its HNSW latency and recall@10 against exact search. It never touches
the real `chunks` table and drops its own."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from docsassistant.bench.measure import BENCH_TABLE, latency_summary, load_average, machine
from docsassistant.config import Settings, get_settings


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


def pg_connect(settings: Settings):
    import psycopg
    from pgvector.psycopg import register_vector

    from docsassistant.db import libpq_uri

    # No automatic prepared statements: a generic plan cached under one setting would
    # otherwise be reused under the next, and EXPLAIN would not show what ran.
    conn = psycopg.connect(libpq_uri(settings), autocommit=True, prepare_threshold=None)
    register_vector(conn)
    return conn


def vector_literal(vector: np.ndarray) -> str:
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
    with pg_connect(settings) as conn:
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
    literals = [vector_literal(q) for q in query_vectors]

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
    with pg_connect(settings) as conn:
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
