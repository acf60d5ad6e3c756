"""Merging ranked lists of chunks into one ranking.

Any number of named lists (dense, bm25, ident, later a knowledge-graph list) each give
(chunk id, score) best first; each list has a weight. Two methods:

- **min-max score combination** (the default): Σ weight · (score − min) / (max − min)
  over each list's candidates. It keeps how far apart the scores are: a chunk far ahead
  in one list (the dense list's clear first) is not overtaken by chunks that are middling
  in two lists, which is what made equal-weight RRF lose to dense search alone.
- **weighted RRF**: Σ weight / (k + rank); only ranks count.

Method and weights were chosen on dev splits (docs/retrieval-quality.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

Method = Literal["rrf", "minmax"]
Ranked = Sequence[tuple[int, float]]

RRF_K = 60
# Chosen on the dev split (docs QA dev + BEIR dev halves) out of 85 settings; see
# docs/retrieval-quality.md for the grid and the test split.
DEFAULT_METHOD: Method = "minmax"
DEFAULT_WEIGHTS: dict[str, float] = {"dense": 1.0, "bm25": 0.5, "ident": 0.5}


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


def ranks(ranked: Ranked) -> dict[int, tuple[int, float]]:
    """chunk id → (rank from 1, score) within one list."""
    return {chunk_id: (rank, score) for rank, (chunk_id, score) in enumerate(ranked, 1)}
