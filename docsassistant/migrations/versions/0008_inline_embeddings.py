"""Chunk embeddings stored in the row (STORAGE MAIN).

pgvector's `vector` type defaults to EXTERNAL storage: a chunk row (content, tsvector,
terms and a 1,544-byte vector(384)) passes PostgreSQL's 2 kB TOAST threshold, so 5,838 of
the 6,422 corpus vectors lived in the TOAST table. A search reads each hit's vector
again to score it, and the exact dense scan of a small scope (retrievers.EXACT_DENSE_MAX)
read every vector through the TOAST index: 11,418 buffers and ~21 ms for 1,990 chunks,
against 498 buffers and 1.4 ms with the vectors in the row (docs/performance.md).
MAIN keeps a value in the row unless the row cannot fit at all; the long text columns
are still compressed or moved out first.

Existing rows keep their TOASTed vectors until rewritten: the migration rewrites the
table (CLUSTER, which re-toasts by the new storage) when it holds at most
REWRITE_MAX_CHUNKS chunks (~1.7 s at 6.4k); a larger store gets the new storage for new
and re-indexed chunks, and `VACUUM FULL chunks` moves the rest (docs/architecture.md).

Revision ID: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

REWRITE_MAX_CHUNKS = 20_000


def upgrade() -> None:
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE MAIN")
    chunks = op.get_bind().execute(sa.text("SELECT count(*) FROM chunks")).scalar_one()
    # An empty table has nothing to rewrite, and CLUSTER would record it as analysed and
    # empty, which made the first ingestion's foreign-key checks scan it (migration 0011).
    if 0 < chunks <= REWRITE_MAX_CHUNKS:
        # CLUSTER (unlike VACUUM FULL) may run inside the migration's transaction.
        op.execute("CLUSTER chunks USING chunks_pkey")
        op.execute("ALTER TABLE chunks SET WITHOUT CLUSTER")


def downgrade() -> None:
    op.execute("ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE EXTERNAL")
