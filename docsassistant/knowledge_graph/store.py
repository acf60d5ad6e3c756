"""Writing a document's part of the knowledge graph, inside the caller's transaction.

`write_document_graph` runs right after a document's chunks are written, so chunks
and graph commit or roll back together. Re-ingesting deletes the old chunks first;
their mentions, relations and links go with them (ON DELETE CASCADE) and the
migration's trigger removes entities nothing mentions any more, so a re-run leaves
the same graph. Entity embeddings are filled afterwards in one batch
(`embed_new_entities`): until then an entity is found by its exact phrase only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from docsassistant.knowledge_graph.extract import extract_chunks
from docsassistant.knowledge_graph.links import chunk_for_link, links_of_file
from docsassistant.knowledge_graph.records import ChunkGraph, normalise_phrase

Extractor = Callable[[str, list[tuple[int, str, str]]], list[ChunkGraph]]
EMBED_BATCH = 2048
# Only these kinds get an embedding: names and titles come in variants a question may
# word differently. Identifiers and terms are matched by their exact phrase; embedding
# them too tripled the entities to embed (measured: the largest cost of the graph).
EMBEDDED_KINDS = ["name", "title", "heading", "llm"]
# The entity index as migration 0010 builds it: cheaper than pgvector's defaults (m 16,
# ef_construction 64), whose insertion was most of the entity-embedding step (issue 9).
ENTITY_INDEX_SQL = (
    "CREATE INDEX ix_entities_embedding_hnsw ON entities USING hnsw (embedding vector_cosine_ops) "
    "WITH (m = 8, ef_construction = 32)"
)


def default_extractor(title: str, chunks: list[tuple[int, str, str]]) -> list[ChunkGraph]:
    """One `ChunkGraph` per (id, section, content) chunk, with the default extractor."""
    return extract_chunks(title, [(section, content) for _, section, content in chunks])


def _upsert_entities(conn: sa.Connection, kinds: dict[str, str]) -> dict[str, int]:
    if not kinds:
        return {}
    phrases = list(kinds)
    conn.execute(
        sa.text(
            "INSERT INTO entities (phrase, kind) SELECT * FROM unnest(CAST(:p AS text[]), CAST(:k AS text[])) "
            "ON CONFLICT (phrase) DO NOTHING"
        ),
        {"p": phrases, "k": [kinds[p] for p in phrases]},
    )
    rows = conn.execute(
        sa.text("SELECT id, phrase FROM entities WHERE phrase = ANY(CAST(:p AS text[]))"), {"p": phrases}
    )
    return {row.phrase: row.id for row in rows}


def write_document_graph(
    conn: sa.Connection,
    document_id: int,
    component: str,
    title: str,
    source_path: str,
    path: Path | None,
    *,
    extractor: Extractor | None = None,
) -> None:
    """Extract and store entities, mentions, relations and links of one written document."""
    chunks = [
        (row.id, row.section, row.content)
        for row in conn.execute(
            sa.text("SELECT id, section, content FROM chunks WHERE document_id = :d ORDER BY ordinal"),
            {"d": document_id},
        )
    ]
    if not chunks:
        return
    graphs = (extractor or default_extractor)(title, chunks)
    kinds: dict[str, str] = {}
    for graph in graphs:
        for entity in graph.entities:
            kinds.setdefault(entity.phrase, entity.kind)
        for rel in graph.relations:
            kinds.setdefault(rel.subject, "phrase")
            kinds.setdefault(rel.object, "phrase")
    ids = _upsert_entities(conn, kinds)
    pairs = {(ids[e.phrase], cid) for (cid, _, _), g in zip(chunks, graphs, strict=True) for e in g.entities}
    pairs |= {
        (ids[p], cid)
        for (cid, _, _), g in zip(chunks, graphs, strict=True)
        for r in g.relations
        for p in (r.subject, r.object)
    }
    if pairs:
        ent, chk = zip(*sorted(pairs), strict=True)
        conn.execute(
            sa.text(
                "INSERT INTO mentions (entity_id, chunk_id) "
                "SELECT * FROM unnest(CAST(:e AS bigint[]), CAST(:c AS bigint[])) ON CONFLICT DO NOTHING"
            ),
            {"e": list(ent), "c": list(chk)},
        )
    triples = [
        (ids[r.subject], r.predicate, ids[r.object], cid)
        for (cid, _, _), g in zip(chunks, graphs, strict=True)
        for r in g.relations
        if r.subject != r.object
    ]
    if triples:
        s, p, o, c = zip(*triples, strict=True)
        conn.execute(
            sa.text(
                "INSERT INTO relations (subject_id, predicate, object_id, chunk_id) SELECT * FROM "
                "unnest(CAST(:s AS bigint[]), CAST(:p AS text[]), CAST(:o AS bigint[]), CAST(:c AS bigint[]))"
            ),
            {"s": list(s), "p": list(p), "o": list(o), "c": list(c)},
        )
    _write_links(conn, document_id, component, title, source_path, path, chunks)


_RESOLVE_OUTGOING = sa.text(
    """
    UPDATE document_links l SET to_document_id = d.id
    FROM documents d
    WHERE l.chunk_id = ANY(CAST(:chunks AS bigint[])) AND d.component = l.component
      AND (d.source_path = l.target_path OR d.source_path LIKE '%/' || l.target_path)
    RETURNING l.chunk_id, d.title"""
)
_MENTION_TITLES = sa.text(
    """
    INSERT INTO mentions (entity_id, chunk_id)
    SELECT e.id, m.c FROM unnest(CAST(:c AS bigint[]), CAST(:p AS text[])) AS m(c, p)
    JOIN entities e ON e.phrase = m.p
    ON CONFLICT DO NOTHING"""
)
# Links written earlier that point at this document (it was not indexed yet then).
_RESOLVE_INCOMING = sa.text(
    """
    WITH resolved AS (
        UPDATE document_links l SET to_document_id = :doc
        WHERE l.to_document_id IS NULL AND l.component = :component
          AND (:source_path = l.target_path OR :source_path LIKE '%/' || l.target_path)
        RETURNING l.chunk_id
    )
    INSERT INTO mentions (entity_id, chunk_id)
    SELECT :title_id, r.chunk_id FROM resolved r
    ON CONFLICT DO NOTHING"""
)


def _write_links(
    conn: sa.Connection,
    document_id: int,
    component: str,
    title: str,
    source_path: str,
    path: Path | None,
    chunks: list[tuple[int, str, str]],
) -> None:
    """Store the document's links; a resolved link makes its chunk mention the target's title,
    which is how the graph walks from a page to the pages it points at."""
    links = links_of_file(path, source_path) if path is not None else []
    if links:
        texts = [(cid, content) for cid, _, content in chunks]
        conn.execute(
            sa.text(
                "INSERT INTO document_links (chunk_id, component, target, target_path) "
                "SELECT c, :component, t, p FROM unnest(CAST(:c AS bigint[]), CAST(:t AS text[]), "
                "CAST(:p AS text[])) AS l(c, t, p)"
            ),
            {
                "component": component,
                "c": [chunk_for_link(link, texts) for link in links],
                "t": [link.target for link in links],
                "p": [link.target_path for link in links],
            },
        )
        resolved = conn.execute(_RESOLVE_OUTGOING, {"chunks": [cid for cid, _, _ in chunks]}).all()
        if resolved:
            conn.execute(
                _MENTION_TITLES,
                {"c": [r.chunk_id for r in resolved], "p": [normalise_phrase(r.title) for r in resolved]},
            )
    title_id = conn.execute(
        sa.text("SELECT id FROM entities WHERE phrase = :p"), {"p": normalise_phrase(title)}
    ).scalar()
    if title_id is not None:
        conn.execute(
            _RESOLVE_INCOMING,
            {"doc": document_id, "component": component, "source_path": source_path, "title_id": title_id},
        )


def _embed_batch(conn: sa.Connection, embed: Callable[[list[str]], object]) -> int:
    from docsassistant.embeddings import vector_literal

    rows = conn.execute(
        sa.text(
            "SELECT id, phrase FROM entities WHERE embedding IS NULL AND kind = ANY(CAST(:kinds AS text[])) "
            "ORDER BY id LIMIT :n"
        ),
        {"n": EMBED_BATCH, "kinds": EMBEDDED_KINDS},
    ).all()
    if rows:
        vectors = embed([row.phrase for row in rows])
        conn.execute(
            sa.text(
                "UPDATE entities e SET embedding = CAST(v.vec AS vector) FROM "
                "unnest(CAST(:ids AS bigint[]), CAST(:vecs AS text[])) AS v(id, vec) WHERE e.id = v.id"
            ),
            {"ids": [row.id for row in rows], "vecs": [vector_literal(v) for v in vectors]},
        )
    return len(rows)


def embed_new_entities(engine: sa.Engine, embed: Callable[[list[str]], object]) -> int:
    """Embed every entity that has no embedding yet, a batch per transaction; returns how many."""
    done = 0
    while True:
        with engine.begin() as conn:
            n = _embed_batch(conn, embed)
        if not n:
            return done
        done += n


def reembed_entities(conn: sa.Connection, embed: Callable[[list[str]], object], dim: int) -> int:
    """Re-embed every entity in the caller's transaction (`docsassistant reindex`: new model)."""
    conn.execute(sa.text("DROP INDEX IF EXISTS ix_entities_embedding_hnsw"))
    conn.execute(sa.text(f"ALTER TABLE entities ALTER COLUMN embedding TYPE vector({int(dim)}) USING NULL"))
    done = 0
    while n := _embed_batch(conn, embed):
        done += n
    conn.execute(sa.text(ENTITY_INDEX_SQL))
    return done
