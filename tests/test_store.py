"""The store itself: migrations, the embedding-model guard, the read-only role."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from conftest import entity_index_options

from docsassistant.embeddings import embedder_identity
from docsassistant.readonly_sql import count_chunks, readonly_connection
from docsassistant.store import StoreModelMismatch, check_model, open_store


def test_schema_has_documented_tables_and_indexes(engine) -> None:
    with engine.connect() as conn:
        tables = set(
            conn.execute(sa.text("SELECT tablename FROM pg_tables WHERE schemaname='public'")).scalars()
        )
        indexes = dict(
            conn.execute(sa.text("SELECT indexname, indexdef FROM pg_indexes WHERE tablename='chunks'")).all()
        )
        fk = conn.execute(
            sa.text(
                "SELECT confdeltype FROM pg_constraint WHERE conrelid = 'chunks'::regclass AND contype = 'f'"
            )
        ).scalar()
    assert {"documents", "chunks", "store_meta", "alembic_version"} <= tables
    assert indexes["ix_chunks_embedding_hnsw"].endswith(
        "USING hnsw (embedding vector_cosine_ops) WHERE canonical"
    )
    assert "USING gin (tsv)" in indexes["ix_chunks_tsv"]
    assert fk == "c"  # ON DELETE CASCADE


def test_entity_index_has_migration_0010_options(engine) -> None:
    """Migration 0010: the entity index's cheaper HNSW build options (issue 9); its
    downgrade restores pgvector's defaults (no options), as 0005 built the index."""
    from conftest import migrate_to

    with engine.connect() as conn:
        assert entity_index_options(conn) == ["m=8", "ef_construction=32"]
    with engine.begin() as conn:
        migrate_to(conn, "0009", down=True)
    try:
        with engine.connect() as conn:
            assert entity_index_options(conn) is None
    finally:
        with engine.begin() as conn:
            migrate_to(conn, "heads")
    with engine.connect() as conn:
        assert entity_index_options(conn) == ["m=8", "ef_construction=32"]


def test_embedding_model_is_recorded_and_mismatch_names_reindex(engine, settings) -> None:
    with engine.connect() as conn:
        meta = dict(conn.execute(sa.text("SELECT key, value FROM store_meta")).all())
    assert meta == {
        "embedding_model": "all-MiniLM-L6-v2",
        "embedding_dim": "384",
        "embedder": embedder_identity(settings),
    }
    other = settings.model_copy(update={"embedding_model": "/models/e5-large"})
    # A different model would need loading to learn its dimension; pretend it is 1024.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("docsassistant.store.configured_dim", lambda s: 1024)
        with pytest.raises(StoreModelMismatch) as err:
            check_model(engine, other)
    message = str(err.value)
    assert "all-MiniLM-L6-v2" in message and "384" in message
    assert "1024" in message and "docsassistant reindex" in message


def test_open_store_is_idempotent(settings) -> None:
    assert open_store(settings) is open_store(settings)


def test_count_chunks_runs_as_readonly_role(clean_db, tmp_path) -> None:
    from conftest import write

    from docsassistant.ingest import index_paths

    write(tmp_path / "a.md", "# A\n\nAlpha text.\n\n## B\n\nBeta text.")
    write(tmp_path / "b.md", "# C\n\nGamma text.")
    index_paths([tmp_path], "comp-one", base=tmp_path)
    write(tmp_path / "other" / "c.md", "# D\n\nDelta.")
    index_paths([tmp_path / "other"], "comp-two", base=tmp_path)
    with clean_db.connect() as conn:
        expected = conn.execute(sa.text("SELECT count(*) FROM chunks WHERE component='comp-one'")).scalar()
    assert count_chunks("comp-one") == {"component": "comp-one", "chunks": expected, "documents": 2}
    assert count_chunks(None)["documents"] == 3
    # Only the chunks whose text has every word (stemmed, as full-text search matches).
    mention = count_chunks(None, "Gamma texts")
    assert mention == {"component": None, "chunks": 1, "documents": 1, "mentioning": "Gamma texts"}
    assert count_chunks("comp-one", "text")["documents"] == 2
    assert count_chunks(None, "alpha gamma")["chunks"] == 0
    with readonly_connection() as conn:
        assert conn.execute(sa.text("SELECT current_user")).scalar() == "docs_readonly"


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO documents (component, source_path, title, content_hash, media_type, size_bytes) "
        "VALUES ('x', 'y', 't', 'h', 'text/plain', 1)",
        "UPDATE documents SET title = 'changed'",
        "DELETE FROM chunks",
        "CREATE TABLE sneaky (id int)",
    ],
)
def test_readonly_role_cannot_write(engine, statement: str) -> None:
    # Outside the READ ONLY transaction too: the role itself lacks the privileges.
    with engine.connect() as conn, conn.begin():
        conn.execute(sa.text("SET LOCAL ROLE docs_readonly"))
        with pytest.raises(sa.exc.ProgrammingError, match="permission denied"):
            conn.execute(sa.text(statement))


def test_readonly_connection_has_a_statement_timeout(engine) -> None:
    """The role had no time limit (QA round 7b, F3d): harmless with fixed queries, but the
    read-only connection is the place for the bound."""
    from docsassistant.readonly_sql import STATEMENT_TIMEOUT_MS, readonly_connection

    with readonly_connection() as conn:
        assert conn.execute(sa.text("SHOW statement_timeout")).scalar() == f"{STATEMENT_TIMEOUT_MS // 1000}s"
        with pytest.raises(sa.exc.OperationalError, match="statement timeout"):
            conn.execute(sa.text("SELECT pg_sleep(6)"))
