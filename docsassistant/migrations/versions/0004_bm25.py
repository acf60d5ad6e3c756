"""BM25 statistics for the lexical ranker, kept by triggers on `chunks`.

- `bm25_postings`: one row per (lexeme, chunk) with the term frequency and the chunk's
  length, read from the chunk's tsvector (its positions are the occurrences). Its key
  (lexeme, component, chunk_id) is the inverted index the ranker scans.
- `bm25_df`: per component, how many chunks contain each lexeme (document frequency).
- `bm25_stats`: per component, the chunk count and the total length (for the average).

Statement-level AFTER triggers with transition tables update all three inside the
statement that changes `chunks`, so the statistics commit or roll back with the chunks
(insert, replace, delete, prune, reindex, cascade from `documents`); TRUNCATE empties
them. Writers take one transaction-scoped advisory lock first: two ingests then never
deadlock on `bm25_df` rows (they queue; chunk writes are short, embedding happens
before the transaction). The migration backfills existing chunks.

Revision ID: 0004
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Any constant works; it only has to be the same in every trigger.
LOCK_KEY = 8_250_004

# tf = number of positions (identifier lexemes from search_terms carry none: count 1);
# the chunk's length is the sum of its tf.
POSTINGS_OF = """
    SELECT t.lexeme, r.id AS chunk_id, r.component,
           coalesce(array_length(t.positions, 1), 1) AS tf,
           sum(coalesce(array_length(t.positions, 1), 1)) OVER (PARTITION BY r.id) AS dl
    FROM {rows} r, unnest(r.tsv) AS t(lexeme, positions, weights)"""

ADD = f"""
    INSERT INTO bm25_postings (lexeme, component, chunk_id, tf, dl)
    SELECT lexeme, component, chunk_id, tf, dl FROM ({POSTINGS_OF.format(rows="{rows}")}) p;
    INSERT INTO bm25_df AS d (component, lexeme, df)
    SELECT r.component, t.lexeme, count(*) FROM {{rows}} r, unnest(tsvector_to_array(r.tsv)) AS t(lexeme)
    GROUP BY 1, 2
    ON CONFLICT (lexeme, component) DO UPDATE SET df = d.df + EXCLUDED.df;
    INSERT INTO bm25_stats AS s (component, chunks, total_len)
    SELECT p.component, count(DISTINCT p.chunk_id), sum(p.tf)
    FROM ({POSTINGS_OF.format(rows="{rows}")}) p GROUP BY 1 ORDER BY 1
    ON CONFLICT (component) DO UPDATE
    SET chunks = s.chunks + EXCLUDED.chunks, total_len = s.total_len + EXCLUDED.total_len;"""

REMOVE = f"""
    DELETE FROM bm25_postings b USING {{rows}} r, unnest(tsvector_to_array(r.tsv)) AS t(lexeme)
    WHERE b.lexeme = t.lexeme AND b.component = r.component AND b.chunk_id = r.id;
    UPDATE bm25_df d SET df = d.df - g.n
    FROM (SELECT r.component, t.lexeme, count(*) AS n
          FROM {{rows}} r, unnest(tsvector_to_array(r.tsv)) AS t(lexeme) GROUP BY 1, 2) g
    WHERE d.component = g.component AND d.lexeme = g.lexeme;
    DELETE FROM bm25_df WHERE df <= 0 AND (component, lexeme) IN (
        SELECT r.component, t.lexeme FROM {{rows}} r, unnest(tsvector_to_array(r.tsv)) AS t(lexeme));
    UPDATE bm25_stats s SET chunks = s.chunks - g.n, total_len = s.total_len - g.len
    FROM (SELECT p.component, count(DISTINCT p.chunk_id) AS n, sum(p.tf) AS len
          FROM ({POSTINGS_OF.format(rows="{rows}")}) p GROUP BY 1) g
    WHERE s.component = g.component;
    DELETE FROM bm25_stats WHERE chunks <= 0;"""

LOCK = f"PERFORM pg_advisory_xact_lock({LOCK_KEY});"


def _function(name: str, body: str) -> str:
    return f"""
        CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            {LOCK}
            {body}
            RETURN NULL;
        END $fn$"""


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE bm25_postings (
            lexeme text NOT NULL,
            component text NOT NULL,
            chunk_id bigint NOT NULL,
            tf integer NOT NULL,
            dl integer NOT NULL,
            PRIMARY KEY (lexeme, component, chunk_id) INCLUDE (tf, dl)
        )"""
    )
    op.execute(
        """
        CREATE TABLE bm25_df (
            component text NOT NULL,
            lexeme text NOT NULL,
            df integer NOT NULL,
            PRIMARY KEY (lexeme, component)
        )"""
    )
    op.execute(
        """
        CREATE TABLE bm25_stats (
            component text PRIMARY KEY,
            chunks bigint NOT NULL,
            total_len bigint NOT NULL
        )"""
    )
    op.execute(_function("bm25_on_insert", ADD.format(rows="new_rows")))
    op.execute(_function("bm25_on_delete", REMOVE.format(rows="old_rows")))
    # Only rows whose text changed (reindex rewrites embeddings alone: nothing to do).
    changed_old = (
        "(SELECT o.* FROM old_rows o JOIN new_rows n ON n.id = o.id "
        "WHERE o.tsv IS DISTINCT FROM n.tsv OR o.component IS DISTINCT FROM n.component)"
    )
    changed_new = (
        "(SELECT n.* FROM new_rows n JOIN old_rows o ON o.id = n.id "
        "WHERE o.tsv IS DISTINCT FROM n.tsv OR o.component IS DISTINCT FROM n.component)"
    )
    op.execute(
        _function(
            "bm25_on_update",
            REMOVE.format(rows=changed_old) + ADD.format(rows=changed_new),
        )
    )
    op.execute(_function("bm25_on_truncate", "TRUNCATE bm25_postings, bm25_df, bm25_stats;"))
    op.execute(
        "CREATE TRIGGER chunks_bm25_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION bm25_on_insert()"
    )
    op.execute(
        "CREATE TRIGGER chunks_bm25_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION bm25_on_delete()"
    )
    op.execute(
        "CREATE TRIGGER chunks_bm25_update AFTER UPDATE ON chunks "
        "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
        "FOR EACH STATEMENT EXECUTE FUNCTION bm25_on_update()"
    )
    op.execute(
        "CREATE TRIGGER chunks_bm25_truncate AFTER TRUNCATE ON chunks "
        "FOR EACH STATEMENT EXECUTE FUNCTION bm25_on_truncate()"
    )
    # Backfill: the same statements over the chunks already stored.
    op.execute(ADD.format(rows="chunks"))


def downgrade() -> None:
    for event in ("insert", "delete", "update", "truncate"):
        op.execute(f"DROP TRIGGER IF EXISTS chunks_bm25_{event} ON chunks")
        op.execute(f"DROP FUNCTION IF EXISTS bm25_on_{event}()")
    op.execute("DROP TABLE IF EXISTS bm25_postings, bm25_df, bm25_stats")
