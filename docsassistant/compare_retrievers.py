"""Dense, BM25, identifier and fused retrieval side by side, from one set of ranked lists.

Each query's lists are fetched once (`retrievers.ranked_lists`, exactly what
`search_docs` fuses); every configuration (one list alone, or a fusion with given
weights) is then ranked from them in Python. That makes the comparison exact (the
retrievers saw the same query, scope and candidates) and a weight grid cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import mean

import sqlalchemy as sa

from docsassistant.beir_eval import BeirData, ranx_metrics
from docsassistant.config import Settings, get_settings
from docsassistant.embeddings import get_embedder
from docsassistant.evaluation import QAQuestion, evidence_found
from docsassistant.fusion import DEFAULT_METHOD, DEFAULT_WEIGHTS, DOCUMENT_DECAY, Method, diversify, fuse
from docsassistant.passages import widen_hits
from docsassistant.retrievers import LIST_NAMES, ranked_lists
from docsassistant.search import fetch_hits
from docsassistant.store import open_store
from docsassistant.terms import code_terms


@dataclass(frozen=True)
class Config:
    """One way to rank: a fusion of some lists with weights (one list alone = weight 1),
    then a document's later chunks decayed by `decay` (1: not diversified)."""

    name: str
    weights: Mapping[str, float]
    method: Method = "rrf"
    k: int = 60
    decay: float = 1.0


SINGLE_LISTS = tuple(Config(name, {name: 1.0}) for name in LIST_NAMES)
SHIPPED = Config("hybrid", DEFAULT_WEIGHTS, DEFAULT_METHOD, decay=DOCUMENT_DECAY)
LEXICAL = Config("text (bm25+ident)", {"bm25": 1.0, "ident": 1.0}, DEFAULT_METHOD)
EQUAL_RRF = Config("equal RRF (k=60)", {"dense": 1.0, "bm25": 1.0, "ident": 1.0}, "rrf")
SIDE_BY_SIDE = (*SINGLE_LISTS, LEXICAL, EQUAL_RRF, SHIPPED)


@dataclass
class QueryLists:
    """One query's ranked lists and the stored fields of every candidate chunk."""

    lists: dict[str, list[tuple[int, float]]]
    chunks: dict[int, dict] = field(default_factory=dict)

    def ranking(self, config: Config) -> list[int]:
        fused = fuse(self.lists, config.weights, method=config.method, k=config.k)
        if config.decay < 1:
            documents = {c: (row["component"], row["source_path"]) for c, row in self.chunks.items()}
            fused = diversify(fused, documents, config.decay)
        return [chunk_id for chunk_id, _ in fused]

    def sources(self, config: Config, k: int) -> list[str]:
        return [self.chunks[c]["source_path"] for c in self.ranking(config)[:k]]


def collect(
    queries: Sequence[tuple[str, str | None]],
    settings: Settings | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[QueryLists]:
    """The ranked lists of every (query, component), with their chunks' fields."""
    settings = settings or get_settings()
    engine = open_store(settings)
    embed = get_embedder(settings).embed_query
    out = []
    for i, (query, component) in enumerate(queries, 1):
        scope = [component.lower()] if component else None
        with engine.begin() as conn:
            lists = ranked_lists(conn, query, code_terms(query), scope, LIST_NAMES, embed)
            ids = {chunk_id for ranked in lists.values() for chunk_id, _ in ranked}
            out.append(QueryLists(lists, fetch_hits(conn, sorted(ids))))
        if progress:
            progress(i, len(queries))
    return out


def _rate(values: list[bool]) -> float | None:
    return mean(map(float, values)) if values else None


def qa_metrics(
    questions: Sequence[QAQuestion],
    collected: Sequence[QueryLists],
    config: Config,
    k: int = 5,
    multi_k: int = 10,
) -> dict[str, float | int | None]:
    """single hit@k, paraphrase hit@k, multi all-found@multi_k, MRR (single+multi), evidence@k."""
    single, para, multi, rr, evidence = [], [], [], [], []
    for q, lists in zip(questions, collected, strict=True):
        if q.type not in ("single", "multi") or not q.sources:
            continue
        ranked = lists.sources(config, max(k, multi_k))
        wanted = set(q.sources)
        if q.type == "single":
            single.append(bool(wanted & set(ranked[:k])))
            if q.paraphrase:
                para.append(single[-1])
        else:
            multi.append(wanted <= set(ranked[:multi_k]))
        rr.append(next((1 / r for r, s in enumerate(ranked[:k], 1) if s in wanted), 0.0))
        contents = [lists.chunks[c]["content"] for c in lists.ranking(config)[:k]]
        found = evidence_found(q.evidence, contents)
        if found is not None:
            evidence.append(found)
    return {
        "single_n": len(single),
        "single_hit": _rate(single),
        "paraphrase_n": len(para),
        "paraphrase_hit": _rate(para),
        "multi_n": len(multi),
        "multi_all_found": _rate(multi),
        "mrr": mean(rr) if rr else None,
        "evidence": mean(evidence) if evidence else None,
    }


def evidence_with_widening(
    questions: Sequence[QAQuestion],
    collected: Sequence[QueryLists],
    config: Config,
    budget: int,
    k: int = 5,
    settings: Settings | None = None,
) -> dict[str, float | None]:
    """Evidence@k (answerable questions) when each hit is widened by `budget` characters."""
    engine = open_store(settings or get_settings())
    scores, chars = [], []
    with engine.connect() as conn:
        for q, lists in zip(questions, collected, strict=True):
            if q.type not in ("single", "multi") or not q.evidence:
                continue
            hits = [dict(lists.chunks[c]) for c in lists.ranking(config)[:k]]
            widen_hits(conn, hits, budget)
            scores.append(evidence_found(q.evidence, [h["content"] for h in hits]) or 0.0)
            chars.append(sum(len(h["content"]) for h in hits))
    return {"evidence": mean(scores) if scores else None, "chars": mean(chars) if chars else None}


def beir_metrics(
    data: BeirData, qids: Sequence[str], collected: Sequence[QueryLists], config: Config, k: int = 5
) -> dict[str, float]:
    """nDCG@10 and recall@k over documents (chunks collapsed: a document's best chunk counts)."""
    run: dict[str, dict[str, float]] = {}
    for qid, lists in zip(qids, collected, strict=True):
        order: list[str] = []
        for chunk_id in lists.ranking(config):
            path = lists.chunks[chunk_id]["source_path"]
            if path not in order:
                order.append(path)
        run[qid] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    means, _ = ranx_metrics({q: data.qrels[q] for q in qids}, run, k)
    return {"ndcg@10": means["ndcg@10"], f"recall@{k}": means[f"recall@{k}"]}


def beir_split(qids: Sequence[str]) -> dict[str, list[str]]:
    """A fixed dev/test halving of BEIR query ids (alternate ids in sorted order)."""
    ordered = sorted(qids)
    return {"dev": ordered[0::2], "test": ordered[1::2]}


def store_has_component(component: str, settings: Settings | None = None) -> bool:
    engine = open_store(settings or get_settings())
    with engine.connect() as conn:
        return (
            conn.execute(
                sa.text("SELECT 1 FROM documents WHERE component = :c LIMIT 1"), {"c": component}
            ).first()
            is not None
        )
