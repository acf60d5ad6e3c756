"""The ranked lists that search fuses: dense (pgvector HNSW, cosine), BM25 (bm25.py) and
code identifiers (chunks that contain the query's identifiers verbatim).

Each list is (chunk id, score) best first, at most `n` long, restricted to `scope`
(a list of components, None = all) in its SQL WHERE clause.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import sqlalchemy as sa

from docsassistant.bm25 import bm25_ranked
from docsassistant.embeddings import vector_literal

LIST_NAMES = ("dense", "bm25", "ident")
CANDIDATES = 50  # per list, before fusion
EF_SEARCH = 200  # HNSW candidate list (>= CANDIDATES); 100 gave recall@10 0.9455 at 100k chunks, 200 0.9650

# Planner settings for the search transaction, set in one round trip.
# - enable_seqscan off: on a few thousand chunks the planner's costs favour a sequential
#   scan with a full sort (measured: 17 ms dense) where the HNSW index answers in ~1 ms;
# - force_custom_plan: psycopg prepares repeated statements, and generic plans of the
#   lexical queries were 4x slower;
# - iterative scans (with a component filter): HNSW alone may return fewer rows than the
#   LIMIT once the filter applies; iterative scans keep walking the graph.
# The same round trip reads the scope's chunk count (EXACT_DENSE_MAX) from bm25_stats.
_SETTINGS = sa.text(
    "SELECT set_config('hnsw.ef_search', :ef, true), set_config('enable_seqscan', 'off', true), "
    "set_config('plan_cache_mode', 'force_custom_plan', true), "
    "set_config('hnsw.iterative_scan', :iterative, true), "
    "(SELECT coalesce(sum(chunks), 0) FROM bm25_stats "
    " WHERE NOT :scoped OR component = ANY(CAST(:scope AS text[]))) AS scope_chunks"
)
# The query embedding (~6 ms, one core) runs while PostgreSQL ranks the lexical lists
# on the other core.
_embedding_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embedding")


def start_embedding(embed_query: Callable[[str], Sequence[float]], query: str) -> Future:
    """The query's embedding, started now in the background. A search starts it before it
    checks out a connection: the embedding is its longest step and the dense query waits
    for it, so every step before it (checkout, ping) was added to the search's time."""
    return _embedding_pool.submit(embed_query, query)


def _where(scoped: bool, keyword: str = "WHERE") -> str:
    return f"{keyword} component = ANY(CAST(:scope AS text[]))" if scoped else ""


EXACT_DENSE_MAX = 2000  # a scope of at most this many chunks is searched exactly, not by HNSW


def _dense_sql(scoped: bool, exact: bool = False) -> str:
    """Canonical chunks only: one per (component, embedding), the ones in the partial HNSW
    index (migration 0009). HNSW links identical vectors only to each other, so a large
    group of them was a sink the graph search could not leave: the top 50 held only the
    group and the nearest chunk was in no dense rank (independent QA pass).

    A duplicate (identical vector, not canonical) that the lexical lists already found
    (`:others`) is credited with its canonical chunk's score, placed just after it: several
    documents holding the same passage then rank alike, while a group of duplicates still
    takes one of the `n` places, never all of them.

    `exact`: the `+ 0` keeps the planner off the HNSW index (a full scan and sort). With the
    vectors in the row (migration 0008) a scope of 1,990 chunks scans in ~1.4 ms; read
    through TOAST it took ~21 ms. A scoped exact scan finds its rows by their documents
    (`ix_chunks_document_id`), so a small component is read alone in a large store; chunks
    have no index on their component, which would let the planner replace HNSW by a sort
    of a large component's every distance."""
    order = "(embedding <=> CAST(:qvec AS vector)) + 0" if exact else "embedding <=> CAST(:qvec AS vector)"
    where = f"canonical {_where(scoped, 'AND')}"
    if exact and scoped:
        where += (
            " AND document_id = ANY(ARRAY(SELECT id FROM documents"
            " WHERE component = ANY(CAST(:scope AS text[]))))"
        )
    return f"""
        WITH hits AS MATERIALIZED (
            SELECT h.*, row_number() OVER () AS pos FROM (
                SELECT id, component, embedding_hash, 1 - (embedding <=> CAST(:qvec AS vector)) AS score
                FROM chunks WHERE {where}
                ORDER BY {order} LIMIT :n) h)
        SELECT id, score FROM (
            SELECT id, score, pos, false AS copy FROM hits
            UNION ALL
            SELECT c.id, h.score, h.pos, true FROM chunks c
            JOIN hits h ON c.embedding_hash = h.embedding_hash AND c.component = h.component
            JOIN chunks k ON k.id = h.id AND k.embedding = c.embedding  -- the hash only narrows
            WHERE c.id = ANY(CAST(:others AS bigint[])) AND NOT c.canonical) r
        ORDER BY pos, copy, id"""


def _ident_sql(scoped: bool) -> str:
    """Chunks holding the most of the query's identifiers (search_terms GIN index)."""
    return f"""
        SELECT c.id, cardinality(ARRAY(SELECT unnest(c.search_terms)
                                       INTERSECT SELECT unnest(CAST(:terms AS text[])))) AS score
        FROM chunks c WHERE c.search_terms && CAST(:terms AS text[]) {_where(scoped, "AND")}
        ORDER BY score DESC, c.id LIMIT :n"""


def ranked_lists(
    conn: sa.Connection,
    query: str,
    terms: Sequence[str],
    scope: Sequence[str] | None,
    names: Sequence[str],
    embed_query: Callable[[str], Sequence[float]],
    n: int = CANDIDATES,
    *,
    embedding: Future | None = None,
) -> dict[str, list[tuple[int, float]]]:
    """The lists named in `names`, each (chunk id, score) best first, within `scope`.
    `embedding`: the query's embedding if already started (start_embedding)."""
    if embedding is None and "dense" in names:
        embedding = start_embedding(embed_query, query)
    params = {
        "ef": str(EF_SEARCH),
        "iterative": "relaxed_order" if scope is not None else "off",
        "scoped": scope is not None,
        "scope": list(scope or []),
        "terms": list(terms),
        "n": n,
    }
    scope_chunks = int(conn.execute(_SETTINGS, params).one().scope_chunks)
    lists: dict[str, list[tuple[int, float]]] = {}
    if "bm25" in names:
        lists["bm25"] = bm25_ranked(conn, query, terms, scope, n)
    if "ident" in names:
        rows = conn.execute(sa.text(_ident_sql(scope is not None)), params).all() if terms else []
        lists["ident"] = [(int(r.id), float(r.score)) for r in rows]
    if embedding is not None:
        exact = scope_chunks <= EXACT_DENSE_MAX
        params["qvec"] = vector_literal(embedding.result())
        params["others"] = sorted({i for name in ("bm25", "ident") for i, _ in lists.get(name, [])})
        rows = conn.execute(sa.text(_dense_sql(scope is not None, exact)), params).all()
        lists["dense"] = [(int(r.id), float(r.score)) for r in rows]
    return lists
