"""The fusion settings tried on the dev split, and the objective that ranks them."""

from __future__ import annotations

from collections.abc import Iterator
from statistics import mean

from docsassistant.compare_retrievers import Config

BM25_WEIGHTS = (0.0, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5)
IDENT_WEIGHTS = (0.0, 0.5, 1.0)
RRF_KS = (5, 20, 60)
DECAYS = (1.0, 0.95, 0.85, 0.7, 0.5, 0.3)  # diversify: 1 leaves the fused order as it is


def grid() -> Iterator[Config]:
    """Dense at weight 1 against BM25 and identifier weights, by weighted RRF and min-max,
    each with every per-document decay."""
    for decay in DECAYS:
        tail = f" decay={decay}" if decay < 1 else ""
        for bm25 in BM25_WEIGHTS:
            for ident in IDENT_WEIGHTS:
                weights = {"dense": 1.0, "bm25": bm25, "ident": ident}
                for k in RRF_KS:
                    yield Config(f"rrf k={k} bm25={bm25} ident={ident}{tail}", weights, "rrf", k, decay)
                yield Config(f"minmax bm25={bm25} ident={ident}{tail}", weights, "minmax", decay=decay)
        yield Config(f"dense only{tail}", {"dense": 1.0}, decay=decay)


def objective(figures: dict[str, dict[str, float | None]], split: str) -> float:
    """Mean of every figure of the sets whose name ends with `-<split>` (each set's figures
    averaged first, so a set counts once however many figures it has)."""
    per_set = []
    for name, values in figures.items():
        if name.endswith(f"-{split}"):
            kept = [v for v in values.values() if v is not None]
            if kept:
                per_set.append(mean(kept))
    return mean(per_set) if per_set else 0.0
