"""Re-embed every chunk with the configured embedding model (after changing models)."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.embeddings import embedder_identity, get_embedder, vector_literal
from docsassistant.ingest import embedding_text
from docsassistant.knowledge_graph.store import reembed_entities
from docsassistant.store import CHUNKS_HNSW_INDEX, open_store, record_model

BATCH = 512


def reindex(settings: Settings | None = None, progress: Callable[[int, int], None] | None = None) -> int:
    """Re-embed all chunks in one transaction (all or nothing); returns the chunk count.

    The vector column is retyped when the dimension changes, and the HNSW index is
    rebuilt once at the end, which is much faster than maintaining it row by row.
    """
    settings = settings or get_settings()
    embedder = get_embedder(settings)
    engine = open_store(settings, check=False)
    with engine.begin() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT c.id, d.title, c.section, c.content FROM chunks c "
                "JOIN documents d ON d.id = c.document_id ORDER BY c.id"
            )
        ).all()
        conn.execute(sa.text("DROP INDEX IF EXISTS ix_chunks_embedding_hnsw"))
        conn.execute(
            sa.text(
                "ALTER TABLE chunks ALTER COLUMN embedding DROP NOT NULL, "
                f"ALTER COLUMN embedding TYPE vector({embedder.dim}) USING NULL, "
                # a new type brings its default storage (EXTERNAL); migration 0008
                "ALTER COLUMN embedding SET STORAGE MAIN"
            )
        )
        for start in range(0, len(rows), BATCH):
            batch = rows[start : start + BATCH]
            vectors = embedder.embed_documents([embedding_text(r.title, r.section, r.content) for r in batch])
            conn.execute(
                sa.text("UPDATE chunks SET embedding = CAST(:v AS vector) WHERE id = :id"),
                [{"id": r.id, "v": vector_literal(vec)} for r, vec in zip(batch, vectors, strict=True)],
            )
            if progress:
                progress(min(start + BATCH, len(rows)), len(rows))
        conn.execute(sa.text("ALTER TABLE chunks ALTER COLUMN embedding SET NOT NULL"))
        # The canonical flags followed the updates (0009's triggers): one chunk per vector.
        conn.execute(sa.text(CHUNKS_HNSW_INDEX))
        reembed_entities(conn, embedder.embed_phrases, embedder.dim)  # the knowledge graph's
        record_model(conn, settings.embedding_model, embedder.dim, embedder_identity(settings))
    return len(rows)
