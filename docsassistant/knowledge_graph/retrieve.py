"""Graph retrieval: personalised PageRank over the passage–entity graph (after HippoRAG 2).

Seeds are the entities the question names (its word n-grams and code identifiers
matched to entity phrases exactly, plus the entities nearest to the question's
embedding) and the top dense hits. An entity's seed weight is divided by the number
of passages that mention it (`entity_passages`, kept by triggers), so a rare name
steers more than a common word. The neighbourhood is read from PostgreSQL in two
steps: the passages that mention the seed entities, then, from the dense seeds and the
first-hop passages with most seed weight only, their other entities (rarest first, up
to `MAX_EDGES` mentions) and the passages that mention those. Entities mentioned by
`HUB_LIMIT` passages or more are left out, as they connect everything to everything.
igraph ranks the nodes (ARPACK: PRPACK took 20x longer with a personalised reset,
measured)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import sqlalchemy as sa

from docsassistant.knowledge_graph.extract import import_spacy
from docsassistant.knowledge_graph.records import normalise_phrase
from docsassistant.terms import code_terms

DAMPING = 0.5  # HippoRAG 2's setting: walks stay close to their seeds
HUB_LIMIT = 50  # an entity in this many passages or more is neither a seed nor followed
MAX_EDGES = 1000  # second-hop mention edges read per search, rarest entities first (bounds latency)
EXPAND_PASSAGES = 10  # first-hop passages (most seed weight first) whose entities are followed
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
    import_spacy()  # imported late, and without torch: spaCy takes seconds to import
    from spacy.lang.en.stop_words import STOP_WORDS

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
    SELECT s.id, s.phrase, s.sim, p.passages AS n
    FROM seeds s JOIN entity_passages p ON p.entity_id = s.id
    WHERE p.passages > 0 AND p.passages < :hub"""
)

# First hop: the passages that mention the seed entities.
_SEED_EDGES = sa.text(
    "SELECT entity_id, chunk_id FROM mentions WHERE entity_id = ANY(CAST(:seed_ids AS bigint[]))"
)
# Second hop, from the expanded passages only: their entities (neither seeds, nor hubs,
# nor entities of one passage, which lead nowhere), rarest first, and every passage
# mentioning them, whole entities only, until `max_edges` mentions are taken.
_SECOND_HOP = sa.text(
    """
    WITH kept AS (
        SELECT p.entity_id, sum(p.passages) OVER (ORDER BY p.passages, p.entity_id) AS running
        FROM (SELECT DISTINCT entity_id FROM mentions WHERE chunk_id = ANY(CAST(:chunk_ids AS bigint[]))) e
        JOIN entity_passages p ON p.entity_id = e.entity_id
        WHERE p.passages > 1 AND p.passages < :hub AND e.entity_id <> ALL(CAST(:seed_ids AS bigint[]))
    )
    SELECT k.entity_id, en.phrase, m.chunk_id
    FROM kept k JOIN entities en ON en.id = k.entity_id JOIN mentions m ON m.entity_id = k.entity_id
    WHERE k.running <= :max_edges"""
)


class Edge(NamedTuple):
    """An entity–passage mention read for the walk (a plain tuple: SQLAlchemy rows were
    slower to read field by field)."""

    entity_id: int
    phrase: str
    chunk_id: int


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
    seeds = {row.id: (row.phrase, row.sim / row.n) for row in conn.execute(_SEEDS, params)}
    dense_seeds = dense[:DENSE_SEEDS]
    edges = [
        Edge(entity_id, seeds[entity_id][0], chunk_id)
        for entity_id, chunk_id in conn.execute(_SEED_EDGES, {"seed_ids": list(seeds)}).all()
    ]
    second = {
        "chunk_ids": expansion(edges, seeds, dense_seeds),
        "seed_ids": list(seeds),
        "hub": HUB_LIMIT,
        "max_edges": MAX_EDGES,
    }
    edges += [Edge(e, phrase, c) for e, phrase, c in conn.execute(_SECOND_HOP, second).all()]
    scores = personalised_pagerank(edges, seeds, dense_seeds)
    if component is not None and scores:
        allowed = set(
            conn.execute(
                sa.text("SELECT id FROM chunks WHERE id = ANY(CAST(:ids AS bigint[])) AND component = :c"),
                {"ids": list(scores), "c": component},
            ).scalars()
        )
        scores = {c: s for c, s in scores.items() if c in allowed}
    # ARPACK's start vector comes from Python's `random`, so equal scores differ in the last
    # bits from run to run (measured: 4e-16); rounded, ties go to the lower chunk id.
    ranked = sorted(scores, key=lambda c: (-round(scores[c], 12), c))[:limit]
    seed_phrases = {phrase: weight for phrase, weight in seeds.values()}
    seed_ids = set(seeds)
    shown = [(row.phrase, row.chunk_id) for row in edges if row.entity_id in seed_ids]
    return GraphResult(ranked, {c: scores[c] for c in ranked}, seed_phrases, shown)


def expansion(
    edges: list[Edge], seeds: dict[int, tuple[str, float]], dense_seeds: list[tuple[int, float]]
) -> list[int]:
    """The passages whose entities the walk reads next: the dense seeds and the
    `EXPAND_PASSAGES` first-hop passages with the most seed weight."""
    weight: Counter[int] = Counter()
    for edge in edges:
        weight[edge.chunk_id] += seeds[edge.entity_id][1]
    top = sorted(weight, key=lambda c: (-weight[c], c))[:EXPAND_PASSAGES]
    return list(dict.fromkeys([*(c for c, _ in dense_seeds), *top]))


def personalised_pagerank(
    edges: list[Edge], seeds: dict[int, tuple[str, float]], dense_seeds: list[tuple[int, float]]
) -> dict[int, float]:
    """PageRank scores of the passages the entity seeds reach, restarted at all seeds
    (igraph, ARPACK).

    Passages reached only from the dense seeds are left out: the dense list already
    ranks them, and the graph's list is worth fusing for what it adds beyond it.
    """
    import igraph

    if not edges or not seeds:
        return {}
    # Node numbers: entities first, then passages.
    entity_node = {e: i for i, e in enumerate(dict.fromkeys(edge.entity_id for edge in edges))}
    passage_node = {
        c: len(entity_node) + i for i, c in enumerate(dict.fromkeys(edge.chunk_id for edge in edges))
    }
    pairs = [(entity_node[edge.entity_id], passage_node[edge.chunk_id]) for edge in edges]
    reset = [0.0] * (len(entity_node) + len(passage_node))
    for entity_id, (_, weight) in seeds.items():
        index = entity_node.get(entity_id)
        if index is not None:
            reset[index] += weight
    for chunk_id, similarity in dense_seeds:
        index = passage_node.get(chunk_id)
        if index is not None:
            reset[index] += PASSAGE_WEIGHT * max(similarity, 0.0)
    if sum(reset) <= 0:
        return {}
    graph = igraph.Graph(n=len(reset), edges=pairs, directed=False)
    ranks = graph.personalized_pagerank(damping=DAMPING, reset=reset, implementation="arpack")
    entity_nodes = [entity_node[e] for e in seeds if e in entity_node]
    # entity → passage → entity → passage: the depth the neighbourhood was read to.
    reached = {v for near in graph.neighborhood(entity_nodes, order=3) for v in near}
    return {chunk_id: ranks[i] for chunk_id, i in passage_node.items() if i in reached}
