"""A knowledge graph of the indexed chunks, kept in the same PostgreSQL (docs/graph-retrieval.md).

- `extract.py`: the default, model-free extractor; `llm_extract.py`: the optional Ollama one;
- `links.py`: links between documents; `store.py`: writing a document's graph;
- `retrieve.py`: personalised PageRank over passages and entities;
- `search.py` (outside this package) fuses the graph's ranking with the other lists (`GRAPH_WEIGHTS`).

The three functions below are the hooks ingestion calls.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np
import sqlalchemy as sa

from docsassistant.foreground import FOREGROUND

if TYPE_CHECKING:
    from docsassistant.config import Settings
    from docsassistant.ingest import PendingDocument


# Entity phrases embedded between two checks for a running search: ~0.1 s of embedding.
ENTITY_SLICE = 256
_preparing: threading.Thread | None = None  # spaCy's loading thread, started once per process


def prepare_graph(settings: Settings) -> None:
    """Start loading the default extractor's spaCy (0.6-0.9 s) in a daemon thread, so that
    it loads beside the first chunk embedding instead of in the first document's
    transaction. Call it only once the embedder is loaded: spaCy hides torch while it
    imports, which must not meet a model load that imports torch."""
    global _preparing
    if settings.graph == "off" or _preparing is not None:  # the llm extractor adds to the default one
        return
    from docsassistant.knowledge_graph.extract import load_tokenizer

    _preparing = threading.Thread(target=load_tokenizer, name="docsassistant-spacy", daemon=True)
    _preparing.start()


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
    embed = get_embedder(settings).embed_phrases

    def after_searches(phrases: list[str]) -> np.ndarray:
        """Slices of phrases, each once no search runs (foreground.py). The gate is here,
        not in `embed_phrases`: the agent's injection check embeds phrases too, and a
        question must never wait for another user's search."""
        parts = []
        for start in range(0, len(phrases), ENTITY_SLICE):
            FOREGROUND.wait_turn()
            parts.append(np.asarray(embed(phrases[start : start + ENTITY_SLICE])))
        return np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.float32)

    return embed_new_entities(engine, after_searches)
