"""`explain_search`: why a chunk ranks where it does (the search inspector page's data).

The same lists, fusion and per-document decay as `search_docs`, but every hit carries its
rank and score in each list (dense, BM25, identifiers) next to its fused rank and score.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from docsassistant.config import Settings, get_settings
from docsassistant.embeddings import get_embedder
from docsassistant.fusion import DEFAULT_WEIGHTS, DOCUMENT_DECAY, fuse, ranks
from docsassistant.retrievers import LIST_NAMES, ranked_lists
from docsassistant.search import (
    MAX_K,
    SearchError,
    check_known_component,
    check_request,
    clean_component,
    diversified,
    search_scope,
)
from docsassistant.store import open_store
from docsassistant.terms import code_terms


class ListPosition(BaseModel):
    """Where one retriever put the chunk (None: not among its candidates)."""

    rank: int | None = None
    score: float | None = None


class ExplainedHit(BaseModel):
    chunk_id: int
    source_path: str
    title: str
    component: str
    section: str
    content: str
    fused_rank: int
    fused_score: float
    lists: dict[str, ListPosition] = Field(description="dense, bm25, ident → rank and score")


class SearchExplanation(BaseModel):
    query: str
    component: str | None
    identifiers: list[str] = Field(description="code identifiers found in the query")
    weights: dict[str, float]
    document_decay: float = Field(
        DOCUMENT_DECAY, description="a document's n-th chunk keeps decay**n of its fused score"
    )
    candidates: dict[str, int] = Field(description="how many candidates each list returned")
    hits: list[ExplainedHit]


def _position(found: tuple[int, float] | None) -> ListPosition:
    return ListPosition() if found is None else ListPosition(rank=found[0], score=found[1])


def explain_search(
    query: str,
    component: str | None = None,
    k: int = 10,
    *,
    settings: Settings | None = None,
    allowed_components: Sequence[str] | None = None,
) -> SearchExplanation:
    """The top `k` fused hits of a hybrid search, with every list's rank and score."""

    settings = settings or get_settings()
    query = check_request(query, min(k, MAX_K), "hybrid")
    try:
        component = clean_component(component)
    except ValueError as exc:
        raise SearchError(str(exc)) from None
    scope = search_scope(component, allowed_components)
    terms = code_terms(query)
    explanation = SearchExplanation(
        query=query,
        component=component,
        identifiers=terms,
        weights=dict(DEFAULT_WEIGHTS),
        candidates={},
        hits=[],
    )
    if scope == []:
        return explanation
    engine = open_store(settings)
    with engine.begin() as conn:
        lists = ranked_lists(conn, query, terms, scope, LIST_NAMES, get_embedder(settings).embed_query)
        fused, rows = diversified(conn, fuse(lists, DEFAULT_WEIGHTS), k)
        fused = fused[:k]
    positions = {name: ranks(ranked) for name, ranked in lists.items()}
    explanation.candidates = {name: len(ranked) for name, ranked in lists.items()}
    for fused_rank, (chunk_id, score) in enumerate(fused, 1):
        row = rows.get(chunk_id)
        if row is None:  # removed by a concurrent ingest between the two statements
            continue
        explanation.hits.append(
            ExplainedHit(
                **{
                    key: row[key]
                    for key in ("chunk_id", "source_path", "title", "component", "section", "content")
                },
                fused_rank=fused_rank,
                fused_score=score,
                lists={name: _position(positions[name].get(chunk_id)) for name in LIST_NAMES},
            )
        )
    if component and not explanation.hits:
        check_known_component(component, allowed_components, settings)
    return explanation
