"""A knowledge graph of the indexed chunks, kept in the same PostgreSQL (docs/graph-retrieval.md).

- `extract.py`: the default, model-free extractor; `llm_extract.py`: the optional Ollama one;
- `links.py`: links between documents; `store.py`: writing a document's graph;
- `retrieve.py`: personalised PageRank over passages and entities;
- `search.py` (outside this package) fuses the graph's ranking with the other lists (`GRAPH_WEIGHTS`).

The two functions below are the hooks ingestion calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

if TYPE_CHECKING:
    from docsassistant.config import Settings
    from docsassistant.ingest import PendingDocument


def write_graph(
    conn: sa.Connection, document_id: int, component: str, item: PendingDocument, settings: Settings
) -> None:
    """Build the graph of a document whose chunks were just written, in the same transaction
    (nothing when DOCSASSISTANT_GRAPH=off)."""
    from docsassistant.knowledge_graph.store import write_document_graph

    if settings.graph == "off":
        return
    extractor = None
    if settings.graph == "llm":
        from docsassistant.knowledge_graph.llm_extract import llm_extractor

        extractor = llm_extractor(settings)
    write_document_graph(
        conn, document_id, component, item.doc.title, item.source_path, item.path, extractor=extractor
    )


def finish_graph(engine: sa.Engine, settings: Settings) -> int:
    """Embed the entities new since the last call (one batch for many documents)."""
    from docsassistant.embeddings import get_embedder
    from docsassistant.knowledge_graph.store import embed_new_entities

    if settings.graph == "off":
        return 0
    return embed_new_entities(engine, get_embedder(settings).embed_phrases)
