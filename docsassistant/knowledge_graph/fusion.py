"""The graph's ranking as one more list in a search's reciprocal rank fusion.

`search_docs(mode="graph")` fuses its usual lists, then calls `add_graph_list`: the
personalised-PageRank ranking adds `GRAPH_WEIGHT / (RRF_K + rank)` to each passage it
ranks, like any other list. Each hit says which of the question's entities lead to it
(`graph_entities`), which the trace and the answer view show.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from docsassistant.knowledge_graph.retrieve import graph_rank

RRF_K = 60
# The graph's list holds only passages the question's entities reach, so it is short;
# at weight 1 a passage found by it alone still lost to any passage two other lists agree
# on (a two-hop toy corpus: the second hop stayed 13th of 14; at 2 it came 2nd).
GRAPH_WEIGHT = 2.0

_ROWS = sa.text(
    """
    SELECT c.id AS chunk_id, d.source_path, d.title, d.component, c.section, c.content
    FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY(CAST(:ids AS bigint[]))"""
)


def add_graph_list(
    conn: sa.Connection,
    query: str,
    qvec: str,
    component: str | None,
    rows: list[dict[str, Any]],
    k: int,
    extra_entities: list[str] | None = None,
) -> list[dict[str, Any]]:
    """`rows` (fused candidates, best first) re-ranked with the graph's list; the best `k`."""
    dense = sorted(
        ((r["chunk_id"], float(r["similarity"]), r["dense_rank"]) for r in rows if r.get("dense_rank")),
        key=lambda t: t[2],
    )
    result = graph_rank(
        conn, query, qvec, [(c, s) for c, s, _ in dense], component, extra_entities=extra_entities
    )
    by_id = {r["chunk_id"]: {**r, "graph_rank": None} for r in rows}
    scores = {cid: float(r["score"]) for cid, r in by_id.items()}
    for rank, chunk_id in enumerate(result.chunk_ids, 1):
        scores[chunk_id] = scores.get(chunk_id, 0.0) + GRAPH_WEIGHT / (RRF_K + rank)
    best = sorted(scores, key=lambda c: (-scores[c], c))[:k]
    missing = [c for c in best if c not in by_id]
    if missing:
        for row in conn.execute(_ROWS, {"ids": missing}).mappings():
            by_id[row["chunk_id"]] = {
                **dict(row),
                "similarity": None,
                "dense_rank": None,
                "text_rank": None,
                "ident_rank": None,
            }
    ranks = {c: i for i, c in enumerate(result.chunk_ids, 1)}
    via: dict[int, list[str]] = {}
    for phrase, chunk_id in result.edges:
        via.setdefault(chunk_id, []).append(phrase)
    return [
        {
            **by_id[c],
            "score": scores[c],
            "graph_rank": ranks.get(c),
            "graph_entities": sorted(set(via.get(c, [])))[:8],
        }
        for c in best
        if c in by_id
    ]
