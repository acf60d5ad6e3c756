"""Graph retrieval: personalised PageRank over the passage–entity graph (after HippoRAG 2).

Seeds are the entities the question names (its word n-grams and code identifiers
matched to entity phrases exactly, plus the entities nearest to the question's
embedding) and the top dense hits. An entity's seed weight is divided by the number
of passages that mention it, so a rare name steers more than a common word. The
neighbourhood (seed passages, the passages that mention the seed entities, the
entities of those passages and the passages that mention them) is read from
PostgreSQL; entities mentioned by more than `HUB_LIMIT` passages are left out, as
they connect everything to everything. igraph ranks the nodes (ARPACK: PRPACK took 20x longer with a personalised reset, measured).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import sqlalchemy as sa

from docsassistant.knowledge_graph.records import normalise_phrase
from docsassistant.terms import code_terms

DAMPING = 0.5  # HippoRAG 2's setting: walks stay close to their seeds
HUB_LIMIT = 50  # an entity in this many passages or more is neither a seed nor followed
MAX_EDGES = 5000  # mention edges read per search (bounds latency on hub-rich stores)
SIMILAR_ENTITIES = 8  # nearest entities to the question embedding
SIMILARITY_FLOOR = 0.7  # below this cosine an entity is not what the question names
DENSE_SEEDS = 5  # top dense hits that also seed the walk
PASSAGE_WEIGHT = 0.05  # dense seeds' share against entity seeds (HippoRAG 2 uses 0.05)
MAX_NGRAM = 6
_WORD = re.compile(r"[\w][\w'.\-+#]*")


@dataclass
class GraphResult:
    """Passages ranked by PageRank, best first, and what the walk started from."""

    chunk_ids: list[int]
    scores: dict[int, float]
    seeds: dict[str, float]  # entity phrase → seed weight
    edges: list[tuple[str, int]] = field(default_factory=list)


def question_phrases(query: str) -> list[str]:
    """Every word n-gram (1..MAX_NGRAM) of the question, normalised, plus its identifiers."""
    words = _WORD.findall(query)
    grams = {
        normalise_phrase(" ".join(words[i : i + n]))
        for n in range(1, MAX_NGRAM + 1)
        for i in range(len(words) - n + 1)
    }
    grams.update(code_terms(query))
    stop = _stop_words()
    return sorted(g for g in grams if len(g) >= 2 and g not in stop)


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS  # imported late: spaCy takes seconds to import

    return frozenset(STOP_WORDS)


_SEEDS = sa.text(
    """
    WITH exact AS (
        SELECT id, phrase, 1.0::float8 AS sim FROM entities WHERE phrase = ANY(CAST(:grams AS text[]))
    ), near AS (
        SELECT id, phrase, 1 - (embedding <=> CAST(:qvec AS vector)) AS sim FROM entities
        WHERE embedding IS NOT NULL ORDER BY embedding <=> CAST(:qvec AS vector) LIMIT :near
    ), seeds AS (
        SELECT id, phrase, max(sim) AS sim FROM (SELECT * FROM exact UNION ALL
            SELECT * FROM near WHERE sim >= :floor) s GROUP BY id, phrase
    )
    SELECT s.id, s.phrase, s.sim, df.n
    FROM seeds s CROSS JOIN LATERAL (
        SELECT count(*) AS n FROM (SELECT 1 FROM mentions m WHERE m.entity_id = s.id LIMIT :hub) x
    ) df"""
)

# Entities of one passage only lead nowhere: they are read only when they are seeds.
_NEIGHBOURHOOD = sa.text(
    """
    WITH n1 AS (
        SELECT m.chunk_id FROM mentions m WHERE m.entity_id = ANY(CAST(:seed_ids AS bigint[]))
        UNION SELECT unnest(CAST(:chunk_ids AS bigint[]))
    ), e1 AS (
        SELECT DISTINCT m.entity_id FROM mentions m JOIN n1 USING (chunk_id)
    ), fanout AS (
        SELECT e1.entity_id, m.ids, e1.entity_id = ANY(CAST(:seed_ids AS bigint[])) AS seed
        FROM e1 CROSS JOIN LATERAL (
            SELECT array_agg(chunk_id) AS ids
            FROM (SELECT chunk_id FROM mentions WHERE entity_id = e1.entity_id LIMIT :hub) x
        ) m
    )
    SELECT f.entity_id, en.phrase, unnest(f.ids) AS chunk_id
    FROM fanout f JOIN entities en ON en.id = f.entity_id
    WHERE cardinality(f.ids) < :hub AND (cardinality(f.ids) > 1 OR f.seed)
    ORDER BY f.seed DESC, cardinality(f.ids), f.entity_id
    LIMIT :max_edges"""
)


def graph_rank(
    conn: sa.Connection,
    query: str,
    qvec: str,
    dense: list[tuple[int, float]],
    component: str | None = None,
    limit: int = 50,
    *,
    extra_entities: list[str] | None = None,
) -> GraphResult:
    """Rank passages for `query` by personalised PageRank; `dense` is (chunk id, cosine), best first.

    `extra_entities` (phrases, e.g. the entities a previous hop found) seed the walk
    like entities named in the question.
    """
    grams = question_phrases(query) + [normalise_phrase(p) for p in extra_entities or []]
    params = {
        "grams": grams,
        "qvec": qvec,
        "near": SIMILAR_ENTITIES,
        "floor": SIMILARITY_FLOOR,
        "hub": HUB_LIMIT,
    }
    seeds = {
        row.id: (row.phrase, row.sim / row.n) for row in conn.execute(_SEEDS, params) if 0 < row.n < HUB_LIMIT
    }
    dense_seeds = dense[:DENSE_SEEDS]
    edges = conn.execute(
        _NEIGHBOURHOOD,
        {
            "seed_ids": list(seeds),
            "chunk_ids": [c for c, _ in dense_seeds],
            "hub": HUB_LIMIT,
            "max_edges": MAX_EDGES,
        },
    ).all()
    degree = Counter(row.entity_id for row in edges)
    edges = [row for row in edges if degree[row.entity_id] < HUB_LIMIT]
    scores = personalised_pagerank(edges, seeds, dense_seeds)
    if component is not None and scores:
        allowed = set(
            conn.execute(
                sa.text("SELECT id FROM chunks WHERE id = ANY(CAST(:ids AS bigint[])) AND component = :c"),
                {"ids": list(scores), "c": component},
            ).scalars()
        )
        scores = {c: s for c, s in scores.items() if c in allowed}
    ranked = sorted(scores, key=lambda c: (-scores[c], c))[:limit]
    seed_phrases = {phrase: weight for phrase, weight in seeds.values()}
    seed_ids = set(seeds)
    shown = [(row.phrase, row.chunk_id) for row in edges if row.entity_id in seed_ids]
    return GraphResult(ranked, {c: scores[c] for c in ranked}, seed_phrases, shown)


def personalised_pagerank(
    edges: list, seeds: dict[int, tuple[str, float]], dense_seeds: list[tuple[int, float]]
) -> dict[int, float]:
    """PageRank scores of the passages the entity seeds reach, restarted at all seeds
    (igraph, ARPACK).

    Passages reached only from the dense seeds are left out: the dense list already
    ranks them, and the graph's list is worth fusing for what it adds beyond it.
    """
    import igraph

    if not edges or not seeds:
        return {}
    names: dict[tuple[str, int], int] = {}

    def node(kind: str, key: int) -> int:
        return names.setdefault((kind, key), len(names))

    pairs = [(node("e", row.entity_id), node("c", row.chunk_id)) for row in edges]
    reset = [0.0] * len(names)
    for entity_id, (_, weight) in seeds.items():
        index = names.get(("e", entity_id))
        if index is not None:
            reset[index] += weight
    for chunk_id, similarity in dense_seeds:
        index = names.get(("c", chunk_id))
        if index is not None:
            reset[index] += PASSAGE_WEIGHT * max(similarity, 0.0)
    if sum(reset) <= 0:
        return {}
    graph = igraph.Graph(n=len(names), edges=pairs, directed=False)
    ranks = graph.personalized_pagerank(damping=DAMPING, reset=reset, implementation="arpack")
    entity_nodes = [names[("e", e)] for e in seeds if ("e", e) in names]
    # entity → passage → entity → passage: the depth the neighbourhood was read to.
    reached = {v for near in graph.neighborhood(entity_nodes, order=3) for v in near}
    return {key: ranks[i] for (kind, key), i in names.items() if kind == "c" and i in reached}
