"""Grow a scratch store to N chunks, for search latency at scale (`bench inflate`).

Copies of the store's real chunks go into components `synthetic-1`, `synthetic-2`, …
with the same text (so BM25 statistics scale like a larger corpus of the same kind:
every lexeme's document frequency grows) and embeddings moved by uniform noise
(per-dimension standard deviation `sigma`), so HNSW sees distinct vectors. The rows go
through the ordinary INSERT path: the BM25 triggers index them like ingested chunks.

Meant for a throwaway copy of a store (the command says so); `deflate_store` removes
the synthetic components again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.store import CHUNKS_HNSW_INDEX, open_store

PREFIX = "synthetic-"

_COPY = """
    WITH docs AS (
        INSERT INTO documents (component, source_path, title, content_hash, media_type, size_bytes, chunk_count)
        -- the original component becomes the first folder, so the join below is unique
        SELECT :component, component || '/' || source_path, title, content_hash, media_type,
               size_bytes, chunk_count
        FROM documents WHERE component NOT LIKE 'synthetic-%'
        RETURNING id, source_path
    )
    INSERT INTO chunks (document_id, component, ordinal, section, content, search_terms, embedding)
    SELECT docs.id, :component, c.ordinal, c.section, c.content, c.search_terms,
           c.embedding + (SELECT array_agg((random() - 0.5) * :width)::vector
                          FROM generate_series(1, vector_dims(c.embedding)))
    FROM chunks c JOIN documents d ON d.id = c.document_id AND d.component NOT LIKE 'synthetic-%'
    JOIN docs ON docs.source_path = d.component || '/' || d.source_path
    LIMIT :limit"""


def inflate_store(
    target: int,
    *,
    sigma: float = 0.04,
    settings: Settings | None = None,
    log: Callable[[str], None] | None = None,
) -> dict:
    """Add synthetic copies until the store holds about `target` chunks; returns timings."""
    settings = settings or get_settings()
    say = log or (lambda _msg: None)
    engine = open_store(settings)
    width = sigma * math.sqrt(12)  # uniform(-w/2, w/2) has standard deviation w / sqrt(12)
    with engine.connect() as conn:
        real = conn.execute(
            sa.text("SELECT count(*) FROM chunks WHERE component NOT LIKE 'synthetic-%'")
        ).scalar_one()
        have = conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar_one()
    if real == 0:
        raise ValueError("The store has no chunks to copy: ingest documents first.")
    start = time.perf_counter()
    with engine.begin() as conn:
        # One HNSW build at the end is much faster than inserting into the graph row by row.
        conn.execute(sa.text("DROP INDEX IF EXISTS ix_chunks_embedding_hnsw"))
        copy = 0
        while have < target:
            copy += 1
            component = f"{PREFIX}{copy}"
            exists = conn.execute(
                sa.text("SELECT 1 FROM documents WHERE component = :c LIMIT 1"), {"c": component}
            ).first()
            if exists:
                continue
            say(f"Copying {min(real, target - have)} chunks into {component}…")
            conn.execute(
                sa.text(_COPY),
                {"component": component, "width": width, "limit": target - have},
            )
            have = conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar_one()
        insert_s = time.perf_counter() - start
        say("Building the HNSW index…")
        conn.execute(sa.text("SET LOCAL maintenance_work_mem = '1GB'"))
        conn.execute(sa.text(CHUNKS_HNSW_INDEX))
    build_s = time.perf_counter() - start - insert_s
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        say("VACUUM ANALYZE…")
        conn.execute(sa.text("VACUUM ANALYZE chunks, documents, bm25_postings, bm25_df, bm25_stats"))
    return {"chunks": have, "real_chunks": real, "insert_s": insert_s, "hnsw_build_s": build_s}


def deflate_store(settings: Settings | None = None) -> int:
    """Remove the synthetic components; returns how many documents went."""
    engine = open_store(settings or get_settings())
    with engine.begin() as conn:
        return conn.execute(sa.text("DELETE FROM documents WHERE component LIKE 'synthetic-%'")).rowcount
