"""Identical embeddings (a file of one repeated sentence, the same file under many names,
versioned copies) and dense search: HNSW links identical vectors only to each other, so a
large group of them became a sink the graph search could not leave and other documents
dropped out of the dense list. Only one chunk per (component, vector) is in the graph."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import sqlalchemy as sa
from conftest import write

from docsassistant.embeddings import vector_literal
from docsassistant.ingest import index_paths
from docsassistant.retrievers import EXACT_DENSE_MAX, ranked_lists
from docsassistant.search import search_docs

DIM = 384


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def add_document(conn: sa.Connection, component: str, path: str, vectors: np.ndarray) -> list[int]:
    """A document whose chunks have the given embeddings (inserted as ingest would: the
    BM25 triggers run); returns the chunk ids in order."""
    doc_id = conn.execute(
        sa.text(
            "INSERT INTO documents (component, source_path, title, content_hash, media_type, size_bytes) "
            "VALUES (:c, :p, :p, 'h', 'text/markdown', 1) RETURNING id"
        ),
        {"c": component, "p": path},
    ).scalar_one()
    conn.execute(
        sa.text(
            "INSERT INTO chunks (document_id, component, ordinal, content, embedding) "
            "VALUES (:d, :c, :o, :t, CAST(:v AS vector))"
        ),
        [
            {"d": doc_id, "c": component, "o": i, "t": f"{path} chunk {i}", "v": vector_literal(v)}
            for i, v in enumerate(vectors)
        ],
    )
    return list(
        conn.execute(
            sa.text("SELECT id FROM chunks WHERE document_id = :d ORDER BY ordinal"), {"d": doc_id}
        ).scalars()
    )


def dense_ids(conn: sa.Connection, query: np.ndarray, scope: list[str] | None = None) -> list[int]:
    lists = ranked_lists(conn, "q", [], scope, ["dense"], lambda _: query)
    return [chunk_id for chunk_id, _ in lists["dense"]]


def test_a_large_group_of_identical_vectors_does_not_hide_the_nearest_chunk(clean_db) -> None:
    """2,200 distinct chunks (40 topics), one whose vector is near the query, and one
    uploaded document of 2,000 identical chunks (within the 2,500-chunk limit) that is the
    query's second-nearest vector. The store is above EXACT_DENSE_MAX, so HNSW answers.
    Before only one chunk per vector entered the graph, HNSW's top 50 held only the
    duplicates and missed the nearest chunk in 19 of 20 builds of this shape (a group of
    1,500: 17 of 20; 250: 0 of 3); this test failed on the code before the change."""
    rng = np.random.default_rng(7)
    topics = unit(rng.standard_normal((40, DIM)))
    distinct = unit(topics[rng.integers(0, 40, 2200)] + 1.8 * rng.standard_normal((2200, DIM)) / np.sqrt(DIM))
    query = unit(rng.standard_normal(DIM))
    near = unit(query + 0.9 * rng.standard_normal(DIM) / np.sqrt(DIM))
    filler = unit(0.3 * query + rng.standard_normal(DIM) / np.sqrt(DIM))
    with clean_db.begin() as conn:
        add_document(conn, "docs", "distinct.md", distinct)
        (target,) = add_document(conn, "docs", "target.md", near[None, :])
        dups = add_document(conn, "docs", "filler.md", np.repeat(filler[None, :], 2000, axis=0))
    assert EXACT_DENSE_MAX < 2200 + 1 + 2000  # the HNSW path
    with clean_db.begin() as conn:
        found = dense_ids(conn, query)
        found_scoped = dense_ids(conn, query, ["docs"])  # the iterative-scan path
    assert found[0] == target and found_scoped[0] == target
    # The filler group counts once among the 50 distinct candidates.
    assert len(set(found) & set(dups)) == 1 and len(found) == 50


def flags(conn: sa.Connection) -> dict[int, bool]:
    """Each chunk's `canonical`, after checking the invariant: exactly one canonical chunk
    per (component, embedding), and every chunk's hash set."""
    groups = conn.execute(
        sa.text(
            "SELECT count(*) FILTER (WHERE canonical) AS canonical, count(embedding_hash) = count(*) AS hashed "
            "FROM chunks GROUP BY component, embedding"
        )
    ).all()
    assert all(g.canonical == 1 and g.hashed for g in groups), groups
    return dict(conn.execute(sa.text("SELECT id, canonical FROM chunks")).all())


def test_one_chunk_per_component_and_vector_is_canonical_through_insert_delete_update(clean_db) -> None:
    v, w, u = unit(np.random.default_rng(3).standard_normal((3, DIM)))
    with clean_db.begin() as conn:
        a = add_document(conn, "docs", "a.md", np.stack([v, v, w]))  # a duplicate in one statement
        b = add_document(conn, "docs", "b.md", np.stack([v, u]))
        (c,) = add_document(conn, "other", "c.md", v[None, :])  # another component: its own
        assert flags(conn) == {a[0]: True, a[1]: False, a[2]: True, b[0]: False, b[1]: True, c: True}
    with clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM documents WHERE source_path = 'a.md'"))  # chunks cascade
        assert flags(conn) == {b[0]: True, b[1]: True, c: True}  # b's copy of v promoted
        d = add_document(conn, "docs", "d.md", np.stack([u, v]))
        assert flags(conn)[d[0]] is False and flags(conn)[d[1]] is False
    with clean_db.begin() as conn:
        # b's u chunk takes v's embedding: it joins v's group and d's u chunk is promoted.
        conn.execute(
            sa.text("UPDATE chunks SET embedding = CAST(:v AS vector) WHERE id = :id"),
            {"v": vector_literal(v), "id": b[1]},
        )
        assert flags(conn) == {b[0]: True, b[1]: False, c: True, d[0]: True, d[1]: False}
    with clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM chunks WHERE id = ANY(:ids)"), {"ids": [b[0], b[1]]})
        assert flags(conn) == {c: True, d[0]: True, d[1]: True}


def test_the_dense_query_walks_the_partial_hnsw_index(clean_db) -> None:
    """The planner must not answer the dense query from another index (a scan and a sort
    of every distance), which a B-tree on the hash and the flag would allow. (For a
    component of a few dozen chunks it may read that component's rows through
    `ix_chunks_component` and sort them, which is exact and cheap; hence 2,400 chunks.)"""
    from docsassistant.retrievers import _SETTINGS, _dense_sql

    rng = np.random.default_rng(5)
    query = unit(rng.standard_normal(DIM))
    with clean_db.begin() as conn:
        for i in range(3):
            add_document(conn, "docs", f"{i}.md", unit(rng.standard_normal((800, DIM))))
        conn.execute(sa.text("ANALYZE chunks"))
    for scoped in (False, True):
        params = {
            "ef": "200",
            "iterative": "relaxed_order" if scoped else "off",
            "scoped": scoped,
            "scope": ["docs"],
            "n": 50,
            "qvec": vector_literal(query),
            "others": [1],
        }
        with clean_db.begin() as conn:
            conn.execute(_SETTINGS, params)
            plan = "\n".join(conn.execute(sa.text("EXPLAIN " + _dense_sql(scoped)), params).scalars())
        assert "Index Scan using ix_chunks_embedding_hnsw" in plan, plan


def test_documents_holding_the_same_passage_rank_alike(clean_db, tmp_path: Path) -> None:
    """Versioned copies: the passage is in the graph once, but each copy the lexical lists
    found gets the dense score too, so both documents are shown, equally ranked. Dense-only
    search lists the passage once."""
    passage = "# Alpha\n\nThe alpha daemon listens on port 7001."
    write(tmp_path / "v1" / "setup.md", passage)
    write(tmp_path / "v2" / "setup.md", passage)
    write(tmp_path / "beta.md", "# Beta\n\nThe beta service retries five times.")
    index_paths([tmp_path], "docs", base=tmp_path)
    with clean_db.connect() as conn:
        copies = conn.execute(
            sa.text(
                "SELECT count(DISTINCT embedding), count(*) FILTER (WHERE canonical) FROM chunks c "
                "JOIN documents d ON d.id = c.document_id WHERE d.source_path LIKE 'v_/setup.md'"
            )
        ).one()
    assert tuple(copies) == (1, 1)  # the premise: one vector, one canonical chunk
    question = "Which port does the alpha daemon listen on?"
    hits = {h["source_path"]: h for h in search_docs(question, k=3)}
    v1, v2 = hits["v1/setup.md"], hits["v2/setup.md"]
    assert v1["similarity"] is not None and v1["similarity"] == v2["similarity"]
    assert v1["score"] == v2["score"] and {v1["dense_rank"], v2["dense_rank"]} == {1, 2}
    dense = [h["source_path"] for h in search_docs(question, k=3, mode="dense")]
    assert len([p for p in dense if p.endswith("setup.md")]) == 1


def test_the_migration_marks_the_duplicates_already_stored(engine) -> None:
    """0009 over a store at 0008 with duplicates, in one transaction rolled back."""
    from conftest import migrate_to

    v, w = unit(np.random.default_rng(9).standard_normal((2, DIM)))
    with engine.connect() as conn, conn.begin() as tx:
        conn.execute(sa.text("TRUNCATE documents, chunks CASCADE"))
        migrate_to(conn, "0008", down=True)
        a = add_document(conn, "docs", "a.md", np.stack([w, v, v]))
        b = add_document(conn, "docs", "b.md", np.stack([v, w]))
        migrate_to(conn, "0009")
        assert flags(conn) == {a[0]: True, a[1]: True, a[2]: False, b[0]: False, b[1]: False}
        index = conn.execute(
            sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_chunks_embedding_hnsw'")
        ).scalar_one()
        assert index.endswith("USING hnsw (embedding vector_cosine_ops) WHERE canonical")
        tx.rollback()


def test_reindex_leaves_one_canonical_chunk_per_new_vector(clean_db, settings, tmp_path: Path) -> None:
    """Spoiled vectors (all identical: one canonical chunk) are re-embedded into two
    vectors; the flags follow the new vectors and the partial index is rebuilt."""
    from docsassistant.reindex import reindex

    write(tmp_path / "a.md", "# Alpha\n\nThe gamma setting tunes delta.")
    write(tmp_path / "copy.md", "# Alpha\n\nThe gamma setting tunes delta.")
    write(tmp_path / "b.md", "# Beta\n\nThe beta service retries five times.")
    index_paths([tmp_path], "re", base=tmp_path)
    with clean_db.begin() as conn:
        conn.execute(sa.text("UPDATE chunks SET embedding = array_fill(0.01, ARRAY[384])::vector"))
        assert sum(flags(conn).values()) == 1
    assert reindex(settings) == 3
    with clean_db.connect() as conn:
        assert sum(flags(conn).values()) == 2
        index = conn.execute(
            sa.text("SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_chunks_embedding_hnsw'")
        ).scalar_one()
    assert index.endswith("WHERE canonical")


def test_a_copy_inserted_while_its_canonical_chunk_is_deleted_becomes_canonical(clean_db) -> None:
    """The insert waits for the chunk writers' lock that the delete holds, then sees the
    delete: without the lock in the BEFORE trigger it saw the doomed chunk, stayed
    non-canonical, and the vector had no canonical chunk left (out of dense search)."""
    v = unit(np.random.default_rng(11).standard_normal(DIM))
    with clean_db.begin() as conn:
        add_document(conn, "docs", "a.md", v[None, :])
    inserted: list[int] = []

    def insert_copy() -> None:
        with clean_db.begin() as conn:
            inserted.extend(add_document(conn, "docs", "b.md", v[None, :]))

    with clean_db.connect() as deleting:
        deleting.begin()
        deleting.execute(sa.text("DELETE FROM documents WHERE source_path = 'a.md'"))
        writer = threading.Thread(target=insert_copy)
        writer.start()
        writer.join(timeout=1.0)
        assert writer.is_alive()  # waiting for the lock
        deleting.commit()
    writer.join(timeout=30)
    with clean_db.connect() as conn:
        assert flags(conn) == {inserted[0]: True}
