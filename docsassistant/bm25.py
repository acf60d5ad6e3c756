"""Okapi BM25 over the chunks, computed in PostgreSQL from the statistics that the
triggers of migration 0004 keep in step with `chunks` (postings, document frequencies,
chunk counts and lengths per component).

score(chunk) = Σ over query lexemes t of
    idf(t) · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl)),
    idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))          (Lucene's non-negative idf)

N, df and avgdl are taken over the components searched, so a filtered search ranks with
the statistics of what it searches. Query lexemes are the English stems of the query
(the same parser as the chunks' tsvector, so stop words drop out the same way) plus
its code identifiers kept verbatim (they are lexemes of the tsvector too).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

K1 = 1.2  # term-frequency saturation (the usual 1.2; 0.9 and 1.5 were no better on dev)
B = 0.75  # length normalisation (the usual 0.75)


def _scope(alias: str, scoped: bool) -> str:
    return f"AND {alias}.component = ANY(CAST(:scope AS text[]))" if scoped else ""


def bm25_sql(scoped: bool) -> str:
    """Top `:n` chunks by BM25 for query `:q` (+ identifier lexemes `:terms`)."""
    stats_where = "WHERE component = ANY(CAST(:scope AS text[]))" if scoped else ""
    return f"""
        WITH q AS (
            SELECT lexeme FROM unnest(tsvector_to_array(to_tsvector('english', :q))) AS lexeme
            UNION SELECT unnest(CAST(:terms AS text[]))
        ),
        st AS (
            SELECT sum(chunks)::float8 AS n, sum(total_len)::float8 / nullif(sum(chunks), 0) AS avgdl
            FROM bm25_stats {stats_where}
        ),
        w AS (
            SELECT q.lexeme, ln(1 + (st.n - sum(d.df) + 0.5) / (sum(d.df) + 0.5)) AS idf, st.avgdl
            FROM q JOIN bm25_df d ON d.lexeme = q.lexeme {_scope("d", scoped)}, st
            GROUP BY q.lexeme, st.n, st.avgdl
        )
        SELECT p.chunk_id AS id,
               sum(w.idf * p.tf * ({K1} + 1) / (p.tf + {K1} * (1 - {B} + {B} * p.dl / w.avgdl))) AS score
        FROM w JOIN bm25_postings p ON p.lexeme = w.lexeme {_scope("p", scoped)}
        GROUP BY p.chunk_id
        ORDER BY score DESC, p.chunk_id
        LIMIT :n"""


def bm25_ranked(
    conn: sa.Connection, query: str, terms: Sequence[str], scope: Sequence[str] | None, n: int
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the best `n` chunks, best first."""
    params = {"q": query, "terms": list(terms), "scope": list(scope or []), "n": n}
    rows = conn.execute(sa.text(bm25_sql(scope is not None)), params).all()
    return [(int(r.id), float(r.score)) for r in rows]
