"""Multi-hop support for the agent: what a later search starts from.

When a turn searches again, the first hop's passages have already named the things
the question is really about ("the director of Blue Harbor" → "Marta Oliveira"). The
entities those passages mention seed the next graph search, so the second hop walks
from them instead of starting again from the question's words.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.store import open_store

MAX_HOP_ENTITIES = 12
# Kinds that name a specific thing; headings and generic terms would only add noise.
_HOP_KINDS = ["name", "identifier", "title", "llm"]

_ENTITIES = sa.text(
    """
    SELECT e.phrase FROM mentions m JOIN entities e ON e.id = m.entity_id
    WHERE m.chunk_id = ANY(CAST(:ids AS bigint[])) AND e.kind = ANY(CAST(:kinds AS text[]))
    GROUP BY e.phrase ORDER BY count(*) DESC, min(array_position(CAST(:ids AS bigint[]), m.chunk_id)), e.phrase
    LIMIT :n"""
)


def hop_entities(chunks: list[dict[str, Any]], settings: Settings | None = None) -> list[str]:
    """The most mentioned specific entities of the passages found so far (first found first)."""
    ids = list(dict.fromkeys(int(c["chunk_id"]) for c in chunks))[:10]
    if not ids:
        return []
    engine = open_store(settings or get_settings())
    with engine.connect() as conn:
        return list(
            conn.execute(_ENTITIES, {"ids": ids, "kinds": _HOP_KINDS, "n": MAX_HOP_ENTITIES}).scalars()
        )


def hop_event_data(hits: list[dict[str, Any]], entities: list[str]) -> dict[str, Any]:
    """What the trace shows of a graph hop: its seed entities and the passages they reach."""
    return {
        "entities": entities,
        "passages": [
            {"chunk_id": h["chunk_id"], "source_path": h["source_path"], "via": h.get("graph_entities", [])}
            for h in hits
        ],
    }
