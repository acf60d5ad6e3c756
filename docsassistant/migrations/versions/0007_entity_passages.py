"""Each entity's passage count (`entity_passages`), kept with its mentions.

Graph retrieval weighs a seed entity by 1 / the number of passages mentioning it and
skips hub entities; counting mentions per search cost an index probe per entity of the
neighbourhood. The count is now stored, maintained by statement triggers on
`mentions` in the transaction that inserts or deletes them.

It is a narrow table of its own rather than a column of `entities`: an update that
changes an `entities` row rarely fits on its page (the rows hold a 384-float
embedding), and a non-HOT update inserts into the HNSW index again, for every document
that mentions a common entity. Upserts go in entity-id order, so two ingestions sharing
entities wait for each other instead of deadlocking.

Revision ID: 0007
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE entity_passages (
            entity_id bigint PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
            passages integer NOT NULL
        ) WITH (fillfactor = 70)"""
    )
    op.execute(
        """
        INSERT INTO entity_passages (entity_id, passages)
        SELECT entity_id, count(*) FROM mentions GROUP BY entity_id"""
    )
    op.execute(
        """
        CREATE FUNCTION count_added_mentions() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO entity_passages AS p (entity_id, passages)
            SELECT entity_id, count(*) FROM added GROUP BY entity_id ORDER BY entity_id
            ON CONFLICT (entity_id) DO UPDATE SET passages = p.passages + EXCLUDED.passages;
            RETURN NULL;
        END $$"""
    )
    op.execute(
        """
        CREATE TRIGGER mentions_count_added AFTER INSERT ON mentions
        REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_added_mentions()"""
    )
    # 0005's orphan trigger, now also counting the removed mentions down.
    op.execute(
        """
        CREATE OR REPLACE FUNCTION drop_orphan_entities() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM 1 FROM entity_passages WHERE entity_id IN (SELECT entity_id FROM gone)
            ORDER BY entity_id FOR UPDATE;
            UPDATE entity_passages p SET passages = p.passages - g.n
            FROM (SELECT entity_id, count(*) AS n FROM gone GROUP BY entity_id) g
            WHERE p.entity_id = g.entity_id;
            DELETE FROM entities e
            WHERE e.id IN (SELECT DISTINCT entity_id FROM gone)
              AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id)
              AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.subject_id = e.id OR r.object_id = e.id);
            RETURN NULL;
        END $$"""
    )
    # TRUNCATE fires no row or transition-table trigger: no mention is left, nor a count.
    op.execute(
        """
        CREATE FUNCTION clear_entity_passages() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM entity_passages;
            RETURN NULL;
        END $$"""
    )
    op.execute(
        """
        CREATE TRIGGER mentions_truncated AFTER TRUNCATE ON mentions
        FOR EACH STATEMENT EXECUTE FUNCTION clear_entity_passages()"""
    )
    op.execute("GRANT SELECT ON entity_passages TO docs_readonly")


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS mentions_truncated ON mentions")
    op.execute("DROP FUNCTION IF EXISTS clear_entity_passages()")
    op.execute("DROP TRIGGER IF EXISTS mentions_count_added ON mentions")
    op.execute("DROP FUNCTION IF EXISTS count_added_mentions()")
    op.execute(
        """
        CREATE OR REPLACE FUNCTION drop_orphan_entities() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM entities e
            WHERE e.id IN (SELECT DISTINCT entity_id FROM gone)
              AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id)
              AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.subject_id = e.id OR r.object_id = e.id);
            RETURN NULL;
        END $$"""
    )
    op.execute("DROP TABLE IF EXISTS entity_passages")
