"""One chunk per (component, embedding) in the HNSW graph: `chunks.canonical`.

HNSW links identical vectors only to each other, so a large group of them (a file of one
repeated sentence, one file under many names, versioned copies) becomes a sink the
graph search cannot leave: on a 4,201-chunk store with one 2,000-chunk group, the top 50
held only the group and missed the nearest chunk in 19 of 20 builds. Now a chunk is
`canonical` unless an earlier chunk of its component has the identical embedding, and
the HNSW index is partial (`WHERE canonical`); dense search reads canonical chunks only.

- `embedding_hash` (hashtextextended of the vector's text form) finds identical vectors
  through a B-tree on it alone; the component is checked and the vectors are compared
  too, so a hash collision never merges two vectors. The B-tree has no `component` or
  `canonical` column on purpose: the planner then answered the dense query with it (a
  scan of the canonical chunks and a sort of every distance) instead of the HNSW index.
- A BEFORE row trigger sets both on insert and on a change of embedding or component,
  before the row reaches the partial index (an AFTER fix-up would already have put the
  duplicate into the graph, where its dead entry stays until vacuum).
- AFTER statement triggers promote a surviving duplicate (the lowest id) when the
  canonical chunk is deleted or its embedding changes.
- The BEFORE trigger takes the chunk writers' advisory lock (0004's), so a writer sees
  every committed chunk: without it, a delete of the canonical chunk and the insert of a
  duplicate in two concurrent transactions could leave the duplicate non-canonical with no
  canonical chunk, out of dense search for good. Two canonical copies of one vector (what
  a writer outside the lock could still make) are harmless: one more graph node.

Revision ID: 0009
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

LOCK_KEY = 8_250_004  # 0004's chunk writers' lock

HNSW = "CREATE INDEX ix_chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)"

# The vector's group: same component, same embedding (the hash narrows, = decides).
SAME = "{a}.component = {b}.component AND {a}.embedding_hash = {b}.embedding_hash AND {a}.embedding = {b}.embedding"

# For each group whose canonical chunk left `{rows}` (gone or changed), the surviving chunk
# with the lowest id becomes canonical, unless the group still has a canonical chunk.
PROMOTE = f"""
    UPDATE chunks c SET canonical = true
    WHERE NOT c.canonical AND c.id IN (
        SELECT (SELECT min(d.id) FROM chunks d WHERE {SAME.format(a="d", b="g")})
        FROM {{rows}} g
        WHERE g.canonical AND g.embedding IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM chunks k WHERE k.canonical AND {SAME.format(a="k", b="g")}))"""


def upgrade() -> None:
    op.execute(
        "ALTER TABLE chunks ADD COLUMN canonical boolean NOT NULL DEFAULT true, ADD COLUMN embedding_hash bigint"
    )
    # The backfill rewrites every row: without the HNSW index it is not inserted into the graph
    # again. It changes no text, so 0004's BM25 update trigger has nothing to do; over every
    # row at once its transition-table joins ran for over 9 minutes on 6,422 chunks (0.5 s off).
    op.execute("DROP INDEX ix_chunks_embedding_hnsw")
    op.execute("ALTER TABLE chunks DISABLE TRIGGER chunks_bm25_update")
    op.execute(
        """
        UPDATE chunks c SET embedding_hash = s.h, canonical = s.first
        FROM (SELECT id, h, row_number() OVER (PARTITION BY component, h, embedding ORDER BY id) = 1 AS first
              FROM (SELECT id, component, embedding, hashtextextended(embedding::text, 0) AS h FROM chunks) x) s
        WHERE c.id = s.id"""
    )
    op.execute("ALTER TABLE chunks ENABLE TRIGGER chunks_bm25_update")
    op.execute("CREATE INDEX ix_chunks_embedding_key ON chunks (embedding_hash)")
    op.execute(f"{HNSW} WHERE canonical")
    op.execute(
        f"""
        CREATE FUNCTION chunks_mark_canonical() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            IF TG_OP = 'UPDATE' AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding
               AND NEW.component = OLD.component THEN
                RETURN NEW;
            END IF;
            PERFORM pg_advisory_xact_lock({LOCK_KEY});
            NEW.embedding_hash := hashtextextended(NEW.embedding::text, 0);
            -- Rows inserted earlier by the same statement are visible here (VOLATILE).
            NEW.canonical := NOT EXISTS (
                SELECT 1 FROM chunks c
                WHERE c.canonical AND c.id <> NEW.id AND c.component = NEW.component
                  AND c.embedding_hash = NEW.embedding_hash AND c.embedding = NEW.embedding);
            RETURN NEW;
        END $fn$"""
    )
    op.execute(
        # Not `UPDATE OF embedding`: a column trigger would forbid reindex's ALTER ... TYPE.
        "CREATE TRIGGER chunks_canonical BEFORE INSERT OR UPDATE ON chunks "
        "FOR EACH ROW EXECUTE FUNCTION chunks_mark_canonical()"
    )
    op.execute(
        f"""
        CREATE FUNCTION chunks_promote_on_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            PERFORM pg_advisory_xact_lock({LOCK_KEY});
            {PROMOTE.format(rows="gone_rows")};
            RETURN NULL;
        END $fn$"""
    )
    changed = (
        "(SELECT o.* FROM old_rows o JOIN new_rows n ON n.id = o.id "
        "WHERE o.embedding IS DISTINCT FROM n.embedding OR o.component IS DISTINCT FROM n.component)"
    )
    op.execute(
        f"""
        CREATE FUNCTION chunks_promote_on_update() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            -- The promotion's own UPDATE fires this trigger again: it changes no embedding.
            IF NOT EXISTS {changed} THEN
                RETURN NULL;
            END IF;
            PERFORM pg_advisory_xact_lock({LOCK_KEY});
            {PROMOTE.format(rows=changed)};
            RETURN NULL;
        END $fn$"""
    )
    op.execute(
        "CREATE TRIGGER chunks_canonical_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS gone_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION chunks_promote_on_delete()"
    )
    op.execute(
        "CREATE TRIGGER chunks_canonical_update AFTER UPDATE ON chunks "
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION chunks_promote_on_update()"
    )


def downgrade() -> None:
    for trigger in ("chunks_canonical", "chunks_canonical_delete", "chunks_canonical_update"):
        op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON chunks")
    for function in ("chunks_mark_canonical", "chunks_promote_on_delete", "chunks_promote_on_update"):
        op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    op.execute("DROP INDEX IF EXISTS ix_chunks_embedding_hnsw")
    op.execute("DROP INDEX IF EXISTS ix_chunks_embedding_key")
    op.execute("ALTER TABLE chunks DROP COLUMN IF EXISTS canonical, DROP COLUMN IF EXISTS embedding_hash")
    op.execute(HNSW)
