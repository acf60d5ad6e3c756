"""Forget the "analysed and empty" statistics 0008 gave a new store's `chunks` table.

Before it was mended, migration 0008 ran CLUSTER on the empty `chunks` table of every new
store, which sets `reltuples` to 0 (as if analysed and found empty) instead of -1
(never analysed). With -1 the planner assumes at least 10 pages; with 0 it believes the
real size. The first document's foreign-key check from `mentions` to `chunks` (one per
mention) was then planned while the table held a page or two, as a sequential scan, and
PostgreSQL kept that plan for the session until autovacuum analysed `chunks`: on a new
store's first ingest of `spring-ai` the checks grew from 12 to 150 µs per mention and
took 4.4-4.9 s of the graph's 8-9 s (docs/graph-retrieval.md).

Only that artefact is cleared (0 pages and 0 tuples, PostgreSQL 18's
`pg_clear_relation_stats`); a table with real statistics, or an older server, is left alone.

Revision ID: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if int(bind.execute(sa.text("SHOW server_version_num")).scalar_one()) < 180000:
        return
    pages, tuples = bind.execute(
        sa.text("SELECT relpages, reltuples FROM pg_class WHERE oid = 'chunks'::regclass")
    ).one()
    if pages == 0 and tuples == 0:
        op.execute("SELECT pg_clear_relation_stats(current_schema(), 'chunks')")


def downgrade() -> None:
    pass  # statistics, not schema: nothing to undo
