"""Cheaper HNSW settings for the entity index: m = 8, ef_construction = 32.

Ingestion's entity-embedding step spent most of its database time in pgvector's HNSW
insertion into `ix_entities_embedding_hnsw` (issue 9, docs/graph-retrieval.md): 3,171
spring-ai entity vectors into a fresh indexed table took ~2.7 s with pgvector's
defaults (m = 16, ef_construction = 64) and ~1.0 s with these. The index serves only
the graph's seed query (the 8 entities nearest the question, cosine >= 0.7, at
`hnsw.ef_search` 200), whose seeds came out identical on all 304 evaluation questions
measured.

The index is rebuilt here, in the migration's transaction (0.62–0.80 s for the 11,246
vectors of the MuSiQue store, measured). `reembed_entities` (`docsassistant reindex`)
builds it with the same options.

Revision ID: 0010
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def _recreate(options: str) -> None:
    op.execute("DROP INDEX IF EXISTS ix_entities_embedding_hnsw")
    op.execute(
        f"CREATE INDEX ix_entities_embedding_hnsw ON entities USING hnsw (embedding vector_cosine_ops){options}"
    )


def upgrade() -> None:
    _recreate(" WITH (m = 8, ef_construction = 32)")


def downgrade() -> None:
    _recreate("")  # pgvector's defaults, as migration 0005 created it
