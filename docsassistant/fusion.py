"""Merging ranked lists of chunks into one ranking.

Any number of named lists (dense, bm25, ident, later a knowledge-graph list) each give
(chunk id, score) best first; each list has a weight. Two methods:

- **min-max score combination** (the default): Σ weight · (score − min) / (max − min)
  over each list's candidates. It keeps how far apart the scores are: a chunk far ahead
  in one list (the dense list's clear first) is not overtaken by chunks that are middling
  in two lists, which is what made equal-weight RRF lose to dense search alone.
- **weighted RRF**: Σ weight / (k + rank); only ranks count.

Then `diversify` lets a document's later chunks make room for other documents: the n-th
chunk of one document (counting from 0, best first) keeps `DOCUMENT_DECAY ** n` of its
fused score. Method, weights and decay were chosen on dev splits (docs/retrieval-quality.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

Method = Literal["rrf", "minmax"]
Ranked = Sequence[tuple[int, float]]

RRF_K = 60
# Chosen on the dev split (docs QA dev + BEIR dev halves) out of 85 settings; see
# docs/retrieval-quality.md for the grid and the test split.
DEFAULT_METHOD: Method = "minmax"
DEFAULT_WEIGHTS: dict[str, float] = {"dense": 1.0, "bm25": 0.5, "ident": 0.5}
# Chosen on the dev splits with the weights (fusion_grid.DECAYS): 0.3-0.85 tie on the dev
# objective (multi-source all-found@10 0.917 -> 1.000, the rest unchanged); 0.7 keeps the
# most evidence@5 and MRR among them.
DOCUMENT_DECAY = 0.7


def fuse(
    lists: Mapping[str, Ranked],
    weights: Mapping[str, float] | None = None,
    *,
    method: Method = DEFAULT_METHOD,
    k: int = RRF_K,
) -> list[tuple[int, float]]:
    """One ranking (chunk id, fused score), best first; ties go to the lower id.

    Only lists with a positive weight count: a list missing from `weights` is left out
    (a new retriever joins by getting a weight).
    """
    weights = DEFAULT_WEIGHTS if weights is None else weights
    if method not in ("rrf", "minmax"):
        raise ValueError(f"Unknown fusion method {method!r}: use 'rrf' or 'minmax'.")
    fused: dict[int, float] = {}
    for name, ranked in lists.items():
        weight = float(weights.get(name, 0.0))
        if weight <= 0 or not ranked:
            continue
        if method == "rrf":
            for rank, (chunk_id, _score) in enumerate(ranked, 1):
                fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (k + rank)
        else:
            scores = [s for _, s in ranked]
            low, high = min(scores), max(scores)
            span = high - low
            for chunk_id, score in ranked:
                share = (score - low) / span if span > 0 else 1.0
                fused[chunk_id] = fused.get(chunk_id, 0.0) + weight * share
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def diversify(
    fused: Ranked, document_of: Mapping[int, Hashable], decay: float = DOCUMENT_DECAY
) -> list[tuple[int, float]]:
    """Re-rank `fused` (best first) so one document does not fill the hits: the n-th chunk
    of a document (n from 0) keeps decay**n of its score. A document's best chunk keeps its
    score, so the order of documents by their best chunk is unchanged. Chunks missing from
    `document_of` count as documents of their own; decay 1 changes nothing."""
    if decay >= 1:
        return list(fused)
    seen: dict[Hashable, int] = {}
    out = []
    for chunk_id, score in fused:
        document = document_of.get(chunk_id, ("chunk", chunk_id))
        n = seen.get(document, 0)
        seen[document] = n + 1
        out.append((chunk_id, score * decay**n))
    return sorted(out, key=lambda item: (-item[1], item[0]))


def ranks(ranked: Ranked) -> dict[int, tuple[int, float]]:
    """chunk id → (rank from 1, score) within one list."""
    return {chunk_id: (rank, score) for rank, (chunk_id, score) in enumerate(ranked, 1)}
