"""Building the graph of documents already in the store (`docsassistant graph build`).

For stores indexed before the graph existed, or to switch extractor. Each document is
rebuilt in its own transaction: its old mentions, relations and links are deleted and
written anew, so an interrupted build leaves every document either old or new.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from pydantic import BaseModel

from docsassistant.knowledge_graph.store import Extractor, embed_new_entities, write_document_graph

_CLEAR = [
    "DELETE FROM mentions WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = :d)",
    "DELETE FROM relations WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = :d)",
    "DELETE FROM document_links WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = :d)",
]


class GraphSize(BaseModel):
    chunks: int
    entities: int
    mentions: int
    relations: int
    links: int
    resolved_links: int


class BuildReport(BaseModel):
    documents: int
    extract_s: float
    embed_s: float
    embedded_entities: int
    size: GraphSize


def graph_size(engine: sa.Engine, component: str | None = None) -> GraphSize:
    """Counts of the graph's rows (for one component, or all)."""
    where = "WHERE c.component = :c" if component else ""
    sql = f"""
        SELECT (SELECT count(*) FROM chunks c {where}) AS chunks,
               (SELECT count(DISTINCT m.entity_id) FROM mentions m JOIN chunks c ON c.id = m.chunk_id {where})
                   AS entities,
               (SELECT count(*) FROM mentions m JOIN chunks c ON c.id = m.chunk_id {where}) AS mentions,
               (SELECT count(*) FROM relations r JOIN chunks c ON c.id = r.chunk_id {where}) AS relations,
               (SELECT count(*) FROM document_links l JOIN chunks c ON c.id = l.chunk_id {where}) AS links,
               (SELECT count(*) FROM document_links l JOIN chunks c ON c.id = l.chunk_id {where}
                   {"AND" if component else "WHERE"} l.to_document_id IS NOT NULL) AS resolved_links"""
    with engine.connect() as conn:
        row = conn.execute(sa.text(sql), {"c": component}).mappings().one()
    return GraphSize(**row)


def build_graph(
    engine: sa.Engine,
    embed: Callable[[list[str]], object],
    *,
    component: str | None = None,
    base: Path | None = None,
    extractor: Extractor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BuildReport:
    """Rebuild the graph of every document (of `component`); `base` is where the files are,
    for reading their links (without it, links are not rebuilt)."""
    with engine.connect() as conn:
        docs = conn.execute(
            sa.text(
                "SELECT id, component, title, source_path FROM documents "
                + ("WHERE component = :c " if component else "")
                + "ORDER BY component, source_path"
            ),
            {"c": component},
        ).all()
    start = time.perf_counter()
    for i, doc in enumerate(docs, 1):
        with engine.begin() as conn:
            for sql in _CLEAR:
                conn.execute(sa.text(sql), {"d": doc.id})
            path = base / doc.source_path if base is not None else None
            write_document_graph(
                conn, doc.id, doc.component, doc.title, doc.source_path, path, extractor=extractor
            )
        if progress:
            progress(i, len(docs))
    extract_s = time.perf_counter() - start
    start = time.perf_counter()
    embedded = embed_new_entities(engine, embed)
    return BuildReport(
        documents=len(docs),
        extract_s=extract_s,
        embed_s=time.perf_counter() - start,
        embedded_entities=embedded,
        size=graph_size(engine, component),
    )
