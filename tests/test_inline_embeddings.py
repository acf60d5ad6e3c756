"""Chunk vectors live in the row, not in TOAST (migration 0008): the exact dense scan of a
small scope and the scoring of every hit read them without a TOAST lookup."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from conftest import migrate_to, write

from docsassistant.ingest import index_paths
from docsassistant.reindex import reindex
from docsassistant.search import search_docs
from docsassistant.store import configured_dim, migrate

TOASTED = "SELECT count(*) FROM chunks WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL"


def _long_page(path: Path, topic: str) -> None:
    # Chunks of ~1,000 characters plus a 1,544-byte vector pass the 2 kB TOAST threshold.
    write(
        path, f"# {topic}\n\n" + " ".join(f"The {topic} option number {i} sets a limit." for i in range(120))
    )


def _storage(conn: sa.Connection) -> str:
    return conn.execute(
        sa.text(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        )
    ).scalar_one()


def test_ingested_vectors_stay_in_the_row(clean_db, tmp_path: Path) -> None:
    _long_page(tmp_path / "a.md", "alpha")
    index_paths([tmp_path], "inline", base=tmp_path)
    with clean_db.connect() as conn:
        assert _storage(conn) == "m"
        assert conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar_one() > 3
        assert conn.execute(sa.text(TOASTED)).scalar_one() == 0


def test_reindex_keeps_vectors_in_the_row(clean_db, settings, tmp_path: Path) -> None:
    """`reindex` changes the column's type, which resets its storage to the type's
    default (EXTERNAL) unless set again."""
    _long_page(tmp_path / "b.md", "beta")
    index_paths([tmp_path], "inline", base=tmp_path)
    assert reindex(settings) > 3
    with clean_db.connect() as conn:
        assert _storage(conn) == "m"
        assert conn.execute(sa.text(TOASTED)).scalar_one() == 0


def test_the_migration_moves_a_small_stores_vectors_into_the_row(clean_db, tmp_path: Path) -> None:
    """A store written before 0008 (vectors in TOAST) is rewritten by the upgrade, and the
    search still finds its pages."""
    with clean_db.begin() as conn:
        migrate_to(conn, "0007", down=True)
    try:
        _long_page(tmp_path / "old.md", "gamma")
        index_paths([tmp_path], "inline", base=tmp_path)
        with clean_db.connect() as conn:
            assert _storage(conn) == "e"
            assert conn.execute(sa.text(TOASTED)).scalar_one() > 0
    finally:
        with clean_db.begin() as conn:
            migrate_to(conn, "heads")
    with clean_db.connect() as conn:
        assert _storage(conn) == "m"
        assert conn.execute(sa.text(TOASTED)).scalar_one() == 0
    assert search_docs("gamma option limit", "inline", 1, mode="dense")[0]["source_path"] == "old.md"


def test_upgrading_an_existing_store_says_so(clean_db, settings, capsys) -> None:
    """An upgrade can rebuild indexes for minutes on a large store: the user is told, so
    the pause does not look like a hang. A store already at the head says nothing."""
    migrate(clean_db, configured_dim(settings))
    assert "Upgrading" not in capsys.readouterr().err
    with clean_db.begin() as conn:
        migrate_to(conn, "0009", down=True)
    migrate(clean_db, configured_dim(settings))
    assert "Upgrading the store's schema from revision 0009 to " in capsys.readouterr().err


_STATS = "SELECT relpages, reltuples FROM pg_class WHERE oid = 'chunks'::regclass"


def _mark_analysed_empty(conn: sa.Connection) -> None:
    """What CLUSTER on an empty table records: analysed, 0 pages, 0 tuples."""
    conn.execute(
        sa.text(
            "SELECT pg_restore_relation_stats('schemaname', current_schema()::text, 'relname', 'chunks', "
            "'relpages', 0::integer, 'reltuples', 0::real)"
        )
    )


def test_a_new_store_does_not_mark_its_empty_chunks_table_analysed(clean_db) -> None:
    """0008 ran CLUSTER on a new store's empty `chunks`, recording it as analysed and empty
    (reltuples 0, not -1). The planner then believed its real size of a page or two when
    the first ingestion's foreign-key checks from `mentions` were planned, chose a
    sequential scan, and kept it for the session: 4.4-4.9 s of the graph's 8-9 s on
    `spring-ai` (docs/graph-retrieval.md). An empty table is no longer rewritten."""
    with clean_db.begin() as conn:
        migrate_to(conn, "0007", down=True)
        conn.execute(sa.text("SELECT pg_clear_relation_stats(current_schema(), 'chunks')"))
        migrate_to(conn, "0008")
        stats = conn.execute(sa.text(_STATS)).one()
        migrate_to(conn, "heads")
    assert tuple(stats) == (0, -1)


def test_the_upgrade_clears_the_empty_table_statistics_0008_left(clean_db) -> None:
    """Stores created while 0008 still rewrote the empty table are mended by 0011; real
    statistics are left as they are."""
    with clean_db.begin() as conn:
        migrate_to(conn, "0010", down=True)
        _mark_analysed_empty(conn)
        migrate_to(conn, "heads")
        assert tuple(conn.execute(sa.text(_STATS)).one()) == (0, -1)
        migrate_to(conn, "0010", down=True)
        conn.execute(
            sa.text(
                "SELECT pg_restore_relation_stats('schemaname', current_schema()::text, 'relname', 'chunks', "
                "'relpages', 7::integer, 'reltuples', 20::real)"
            )
        )
        migrate_to(conn, "heads")
        assert tuple(conn.execute(sa.text(_STATS)).one()) == (7, 20)
