"""`search_docs`: hybrid retrieval over the chunks table.

Three ranked lists (retrievers.py): dense search (pgvector HNSW, cosine), BM25 over
the chunks' full text (bm25.py), and, when the query contains code identifiers
(`hnsw.ef_search`, `<=>`, `PgVectorStore`), the chunks that contain them verbatim.
Min-max score fusion (fusion.py) merges them, with weights chosen on the dev splits,
then a document's second, third … chunks are decayed (`fusion.diversify`) so that one
long page does not fill every hit. A hit can then be widened to its section's
neighbouring chunks (passages.py, `DOCSASSISTANT_SMALL_TO_BIG_CHARS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.embeddings import get_embedder, vector_literal
from docsassistant.foreground import FOREGROUND
from docsassistant.fusion import DEFAULT_WEIGHTS, diversify, fuse
from docsassistant.inputs import MAX_COMPONENT_CHARS, InputError, clean_query, clean_text, clip_query
from docsassistant.knowledge_graph.retrieve import graph_rank
from docsassistant.passages import head_tables, widen_hits
from docsassistant.retrievers import CANDIDATES, EF_SEARCH, LIST_NAMES, ranked_lists, start_embedding
from docsassistant.store import open_store
from docsassistant.terms import code_terms

__all__ = ["CANDIDATES", "EF_SEARCH", "MAX_K", "SearchError", "list_components", "search_docs"]

MAX_K = 50

Mode = Literal["hybrid", "dense", "text", "bm25", "ident", "graph"]
# Which lists each mode fuses: `text` is the lexical side alone (BM25 + identifiers);
# `graph` is hybrid plus the knowledge graph's personalised-PageRank list.
MODE_LISTS: dict[str, tuple[str, ...]] = {
    "hybrid": LIST_NAMES,
    "dense": ("dense",),
    "text": ("bm25", "ident"),
    "bm25": ("bm25",),
    "ident": ("ident",),
    "graph": LIST_NAMES,
}
# The modes the agent searches with; the single-list modes stay raw, as baselines and for
# the search inspector.
DIVERSIFIED_MODES = frozenset({"hybrid", "graph"})
DIVERSIFY_POOL = 4  # the decay re-ranks the best 4·k fused candidates (`diversified`)
# How graph mode fuses: "rrf" (weighted RRF over GRAPH_WEIGHTS), or hybrid's min-max fusion
# (DEFAULT_WEIGHTS) plus the graph list at GRAPH_WEIGHTS["graph"], its share taken from the
# PageRank scores, min-max normalised ("minmax"), or from the graph ranks ("minmax-rank":
# (n - r + 1) / n at rank r of n). PageRank mass falls off steeply (the second hop's passage
# scored 7 % of the first in the two-hop test), so "minmax" leaves the second hop almost
# nothing; ranks do not. "minmax-rank" at graph weight 0.25 was chosen out of 19 settings
# (the three fusions at graph weights 0.1-2) on the dev halves of MuSiQue and HotpotQA (mean
# of nDCG@10 and recall@5: 0.7583, against 0.7154 for rrf at weight 1, the default before);
# on the test halves it scores 0.7387 against 0.7223, but loses HotpotQA test nDCG@10
# (0.8327 vs 0.8491). Docs QA multi-source all-found@10 0.957 (rrf 1: 0.913; with the
# document decay). Figures in docs/graph-retrieval.md.
GraphFusion = Literal["rrf", "minmax", "minmax-rank"]
GRAPH_FUSION: GraphFusion = "minmax-rank"
# RRF weights (GRAPH_FUSION "rrf") and, for the min-max fusions, the graph list's weight
# beside DEFAULT_WEIGHTS. Going back to "rrf" needs "graph" at 1, its best on dev.
GRAPH_WEIGHTS = {"dense": 1.0, "bm25": 1.0, "ident": 1.0, "graph": 0.25}


class SearchError(ValueError):
    """A search request that cannot be run; the message says how to fix it."""


def list_components(settings: Settings | None = None) -> list[str]:
    engine = open_store(settings or get_settings())
    with engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT DISTINCT component FROM documents ORDER BY 1")).scalars())


def clean_component(value: str | None) -> str | None:
    text = clean_text(value, what="component name", max_chars=MAX_COMPONENT_CHARS, required=False)
    return text.lower() or None


def search_scope(component: str | None, allowed_components: Sequence[str] | None) -> list[str] | None:
    """The components a search may see (None = all): `component`, narrowed to the allowed ones."""
    allowed = None
    if allowed_components is not None:
        allowed = sorted({c for c in (clean_component(a) for a in allowed_components) if c})
    if component is None:
        return allowed
    return [component] if allowed is None or component in allowed else []


_HITS = sa.text(
    """
    SELECT c.id AS chunk_id, d.source_path, d.title, d.component, c.section, c.content, c.ordinal,
           c.document_id
    FROM chunks c JOIN documents d ON d.id = c.document_id
    WHERE c.id = ANY(CAST(:ids AS bigint[]))"""
)


def fetch_hits(conn: sa.Connection, ids: Sequence[int]) -> dict[int, dict]:
    """chunk id → the hit's stored fields."""
    return {row["chunk_id"]: dict(row) for row in conn.execute(_HITS, {"ids": list(ids)}).mappings()}


def check_request(query: str, k: int, mode: str) -> str:
    try:
        query = clean_query(query)
    except InputError as exc:
        raise SearchError(f"{exc} Pass some words to search for.") from None
    if not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise SearchError(f"k must be an integer from 1 to {MAX_K}, got {k!r}.")
    if mode not in MODE_LISTS:
        raise SearchError(f"mode must be one of {', '.join(MODE_LISTS)}, got {mode!r}.")
    return query


def search_docs(
    query: str,
    component: str | None = None,
    k: int = 5,
    *,
    mode: Mode = "hybrid",
    settings: Settings | None = None,
    allowed_components: Sequence[str] | None = None,
    entities: list[str] | None = None,
) -> list[dict]:
    """Find the documentation chunks most relevant to `query`.

    `component` restricts the search to one component; `allowed_components` (when not
    None) to those components whatever else is asked (enforced in the SQL WHERE).
    Returns up to `k` hits, best first, each a dict with `chunk_id`, `source_path`,
    `title`, `component`, `section`, `content` (widened by small-to-big when that is
    on), `ordinal`, `score` (fused), `similarity` (cosine, None when dense search did
    not return the chunk) and each list's rank (`dense_rank`, `bm25_rank`,
    `ident_rank`; None where the chunk was not in that list). Mode "graph" adds the
    knowledge graph's list (`graph_rank`, and `graph_entities`: the question's entities
    that lead to the hit); `entities` seed it further (a previous hop's).
    """
    settings = settings or get_settings()
    query = check_request(query, k, mode)
    try:
        component = clean_component(component)
        scope = search_scope(component, allowed_components)
    except InputError as exc:
        raise SearchError(str(exc)) from None
    if scope == []:
        if component is not None:  # asked for a component outside the allowed ones
            check_known_component(component, allowed_components or [], settings)
        return []
    with FOREGROUND.running():  # an upload indexing in this process waits meanwhile
        return _search(query, component, k, mode, settings, scope, allowed_components, entities)


def search_without_model(question: str, component: str | None, k: int = 5) -> tuple[list[dict], str]:
    """What the chat page and `ask` show when the model is unavailable: the hits for the
    question (cut to the query limit), or no hits and why the search failed too."""
    try:
        return search_docs(clip_query(question), component, k), ""
    except Exception as exc:
        return [], f"Search failed too: {exc}"


def _search(
    query: str,
    component: str | None,
    k: int,
    mode: Mode,
    settings: Settings,
    scope: list[str] | None,
    allowed_components: Sequence[str] | None,
    entities: list[str] | None,
) -> list[dict]:
    """search_docs once its request is checked: rank, fuse and fetch the hits."""
    engine = open_store(settings)
    embed_query = get_embedder(settings).embed_query
    vectors: list[Sequence[float]] = []

    def embed(text: str) -> Sequence[float]:
        """Embed once and keep the vector: the walk's entity seeds need it too. Embedding
        still runs beside the lexical lists (in ranked_lists' pool), as in hybrid mode."""
        vectors.append(embed_query(text))
        return vectors[-1]

    names = MODE_LISTS[mode]
    embedding = start_embedding(embed, query) if "dense" in names else None  # before the checkout
    with engine.begin() as conn:
        lists = ranked_lists(conn, query, code_terms(query), scope, names, embed, embedding=embedding)
        via: dict[int, list[str]] = {}
        if mode == "graph":
            qvec = vector_literal(vectors[-1])
            lists["graph"], via = _graph_list(conn, query, qvec, lists.get("dense", []), scope, entities)
            fused = fuse_graph(lists)
        else:
            fused = fuse(lists, DEFAULT_WEIGHTS)
        take = 3 * k if mode == "graph" else k  # graph hits outside the scope are dropped below
        if mode in DIVERSIFIED_MODES:
            fused, rows = diversified(conn, fused, take)
        else:
            rows = fetch_hits(conn, [chunk_id for chunk_id, _ in fused[:take]])
        if scope is not None:  # the graph walk may reach outside the scope: never return it
            rows = {cid: row for cid, row in rows.items() if row["component"] in scope}
        hits = [_hit(rows[chunk_id], score, lists) for chunk_id, score in fused if chunk_id in rows][:k]
        if mode == "graph":
            for hit in hits:
                hit["graph_entities"] = sorted(set(via.get(hit["chunk_id"], [])))[:8]
        widen_hits(conn, hits, settings.small_to_big_chars)
        head_tables(conn, hits)
    if component and not hits:
        # Checked only when nothing matched, which keeps a query off the hot path: an
        # unknown component is the usual reason for an empty filtered search.
        check_known_component(component, allowed_components, settings)
    return hits


def diversified(
    conn: sa.Connection, fused: list[tuple[int, float]], take: int
) -> tuple[list[tuple[int, float]], dict[int, dict]]:
    """`fusion.diversify` over the best `DIVERSIFY_POOL * take` fused candidates, with their
    rows, read in the one query that fetches the hits (the rows carry the document ids).
    Only that pool is re-ranked and returned: a candidate below it would have to beat a
    decayed chunk of the pool. On every docs QA question the top 5 equal those of a re-rank
    of the whole list (docs/retrieval-quality.md)."""
    pool = fused[: DIVERSIFY_POOL * take]
    rows = fetch_hits(conn, [chunk_id for chunk_id, _ in pool])
    return diversify(pool, {cid: row["document_id"] for cid, row in rows.items()}), rows


def fuse_graph(lists: dict[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
    """Graph mode's fusion (GRAPH_FUSION)."""
    if GRAPH_FUSION == "rrf":
        return fuse(lists, GRAPH_WEIGHTS, method="rrf")
    weight = GRAPH_WEIGHTS["graph"]
    if GRAPH_FUSION == "minmax":
        return fuse(lists, {**DEFAULT_WEIGHTS, "graph": weight})
    # minmax-rank: the graph list's passage at rank r of n gets (n - r + 1) / n, so its last
    # passage keeps a share (min-max over the ranks would give it 0: with two passages the
    # second hop got nothing).
    fused = dict(fuse({name: r for name, r in lists.items() if name != "graph"}, DEFAULT_WEIGHTS))
    graph = lists.get("graph", [])
    if weight > 0:
        for i, (chunk_id, _score) in enumerate(graph):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + weight * (len(graph) - i) / len(graph)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def check_known_component(component: str, allowed: Sequence[str] | None, settings: Settings) -> None:
    """Raise when `component` is not a known (and allowed) one; the message lists those."""
    known = list_components(settings)
    if allowed is not None:
        permitted = search_scope(None, allowed) or []
        known = [c for c in known if c in permitted]
    if component not in known:
        listing = ", ".join(known) or "none yet: run `docsassistant ingest`"
        raise SearchError(f"Unknown component {component!r}. Known components: {listing}.")


def _graph_list(
    conn: sa.Connection,
    query: str,
    qvec: str,
    dense: list[tuple[int, float]],
    scope: list[str] | None,
    entities: list[str] | None,
) -> tuple[list[tuple[int, float]], dict[int, list[str]]]:
    """The knowledge graph's ranking (chunk id, PageRank score) and the entities leading to each."""
    component = scope[0] if scope is not None and len(scope) == 1 else None
    result = graph_rank(conn, query, qvec, dense, component, extra_entities=entities)
    via: dict[int, list[str]] = {}
    for phrase, chunk_id in result.edges:
        via.setdefault(chunk_id, []).append(phrase)
    return [(cid, float(result.scores.get(cid, 0.0))) for cid in result.chunk_ids], via


def _hit(row: dict, score: float, lists: dict[str, list[tuple[int, float]]]) -> dict:
    hit = {**row, "score": float(score), "similarity": None}
    hit.pop("document_id", None)  # read for diversify; not part of a hit
    for name in (*LIST_NAMES, *(n for n in lists if n not in LIST_NAMES)):
        ranked = lists.get(name, [])
        position = next((i for i, (chunk_id, _) in enumerate(ranked, 1) if chunk_id == row["chunk_id"]), None)
        hit[f"{name}_rank"] = position
        if name == "dense" and position is not None:
            hit["similarity"] = ranked[position - 1][1]
    return hit
