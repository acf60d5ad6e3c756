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

Speed at scale: a lexeme in a large share of the chunks (`vector` in vector-database
docs) has hundreds of thousands of postings at 100k chunks and little idf. As in
Lucene's CommonTermsQuery, such common lexemes (df > COMMON_SHARE · N) do not bring
candidates: only chunks that hold at least one rarer query lexeme are scored, and then
with all query lexemes (their common-lexeme postings are looked up in the postings'
primary key for those candidates only, one index scan per common lexeme). A query made
only of common lexemes is scored over all of their postings.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa

K1 = 1.2  # term-frequency saturation (the usual value)
B = 0.75  # length normalisation (the usual value)
COMMON_SHARE = 0.02  # a lexeme in more than this share of the chunks brings no candidates


def _scope(alias: str, scoped: bool) -> str:
    return f"AND {alias}.component = ANY(CAST(:scope AS text[]))" if scoped else ""


def _term_score(p: str, w: str) -> str:
    # float8 constants: a bare 1.2 is a numeric in SQL, and numeric arithmetic on every
    # posting was a third of an all-common query's time (81 -> 59 ms at 100k chunks).
    return (
        f"{w}.idf * {p}.tf * {K1 + 1:.12g}::float8 "
        f"/ ({p}.tf + {K1 * (1 - B):.12g}::float8 + {K1 * B:.12g}::float8 * {p}.dl / {w}.avgdl)"
    )


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
        df AS (
            SELECT q.lexeme, sum(d.df) AS df, st.n, st.avgdl
            FROM q JOIN bm25_df d ON d.lexeme = q.lexeme {_scope("d", scoped)}, st
            GROUP BY q.lexeme, st.n, st.avgdl
        ),
        w AS (
            SELECT lexeme, ln(1 + (n - df + 0.5) / (df + 0.5)) AS idf, avgdl,
                   df <= :common * n OR NOT EXISTS (SELECT 1 FROM df WHERE df <= :common * n) AS brings
            FROM df
        ),
        cand AS (  -- grouped by the id alone (a chunk has one component): hashing the text cost
            SELECT p.chunk_id, sum({_term_score("p", "w")}) AS partial
            FROM w JOIN bm25_postings p ON p.lexeme = w.lexeme {_scope("p", scoped)}
            WHERE w.brings
            GROUP BY p.chunk_id
        ),
        -- Common lexemes add at most idf · (k1 + 1) each: a candidate whose partial score
        -- plus that bound stays below the n-th best partial score cannot reach the top n.
        bound AS (SELECT coalesce(sum(idf * ({K1} + 1)), 0) AS ub FROM w WHERE NOT brings),
        theta AS (SELECT coalesce(min(partial), 0) AS t
                  FROM (SELECT partial FROM cand ORDER BY partial DESC LIMIT :n) best),
        kept AS (
            SELECT c.chunk_id, c.partial FROM cand c, bound, theta
            WHERE c.partial + bound.ub >= theta.t
        ),
        -- The common lexemes' terms of the kept candidates: one index scan per common lexeme
        -- for the kept chunk ids (a chunk id has one component), not a correlated subquery
        -- per candidate (~20 us each: 17 ms for a question with 794 candidates). Summed in
        -- lexeme order, so that each score is the same float whatever the plan.
        common AS (
            SELECT p.chunk_id, sum({_term_score("p", "w")} ORDER BY w.lexeme) AS extra
            FROM w JOIN bm25_postings p
              ON p.lexeme = w.lexeme AND p.chunk_id = ANY(ARRAY(SELECT chunk_id FROM kept))
            WHERE NOT w.brings
            GROUP BY p.chunk_id
        )
        -- partial + extra, added as in one expression, without a join: the planner cannot
        -- estimate `common` and picked a nested loop over it (15 ms).
        SELECT chunk_id AS id, sum(part ORDER BY step) AS score
        FROM (SELECT chunk_id, partial AS part, 0 AS step FROM kept
              UNION ALL SELECT chunk_id, extra, 1 FROM common) parts
        GROUP BY chunk_id
        ORDER BY score DESC, chunk_id
        LIMIT :n"""


def bm25_ranked(
    conn: sa.Connection,
    query: str,
    terms: Sequence[str],
    scope: Sequence[str] | None,
    n: int,
    common_share: float = COMMON_SHARE,
) -> list[tuple[int, float]]:
    """(chunk id, BM25 score) of the best `n` chunks, best first (common_share=1: exact)."""
    params = {"q": query, "terms": list(terms), "scope": list(scope or []), "n": n, "common": common_share}
    rows = conn.execute(sa.text(bm25_sql(scope is not None)), params).all()
    return [(int(r.id), float(r.score)) for r in rows]
