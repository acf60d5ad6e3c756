"""Graph vs no-graph, side by side: BEIR sets, the docs QA set, and search latency.

Settings are chosen on a dev split and confirmed on a test split: the judged queries,
sorted by id, alternate between the two (even positions dev, odd test).
"""

from __future__ import annotations

import time
from functools import partial
from statistics import mean

from docsassistant.beir_eval import BeirData, evaluate_beir
from docsassistant.config import Settings
from docsassistant.evaluation import QAQuestion, evaluate_qa, percentile
from docsassistant.search import search_docs

SPLITS = ("dev", "test", "all")
RECALL_AT = (5,)  # issue 9 states its MuSiQue target as recall@5 (and nDCG@10)


def split_of(ids: list[str]) -> dict[str, str]:
    """query id → "dev" or "test", alternating over the sorted ids."""
    return {qid: ("dev", "test")[i % 2] for i, qid in enumerate(sorted(ids))}


def compare_beir(data: BeirData, component: str, modes: list[str], k: int, settings: Settings) -> dict:
    """Mean BEIR metrics (nDCG@10, recall@5, recall@k, MRR@k) of each search mode on the dev,
    test and whole query sets."""
    out: dict[str, dict] = {}
    for mode in modes:
        result = evaluate_beir(
            data, component, k, settings=settings, search=partial(search_docs, mode=mode), recall_at=RECALL_AT
        )
        per_query = result["per_query"]
        splits = split_of(list(per_query))
        metrics = list(result["metrics"])
        out[mode] = {
            split: {
                m: mean(v[m] for q, v in per_query.items() if split == "all" or splits[q] == split)
                for m in metrics
            }
            for split in SPLITS
        }
        out[mode]["latency_ms_mean"] = result["latency_ms_mean"]
    return out


def compare_qa(questions: list[QAQuestion], modes: list[str], k: int, settings: Settings) -> dict:
    """Per-type figures of the docs QA set for each search mode (dev/test split by id)."""
    splits = split_of([q.id for q in questions])
    out: dict[str, dict] = {}
    for mode in modes:
        search = partial(search_docs, mode=mode)
        out[mode] = {}
        for split in SPLITS:
            chosen = [q for q in questions if split == "all" or splits[q.id] == split]
            if chosen:
                out[mode][split] = evaluate_qa(chosen, k, settings=settings, search=search)["aggregate"]
    return out


def search_latency(
    queries: list[str], component: str | None, modes: list[str], k: int, rounds: int = 2
) -> dict:
    """p50/p95 latency (ms) of each mode over the queries, modes interleaved query by query
    so both see the same machine load; the first round only warms caches."""
    times: dict[str, list[float]] = {m: [] for m in modes}
    for round_ in range(rounds):
        for query in queries:
            for mode in modes:
                start = time.perf_counter()
                search_docs(query, component, k, mode=mode)
                if round_ > 0 or rounds == 1:
                    times[mode].append((time.perf_counter() - start) * 1000)
    return {
        m: {"n": len(t), "p50": percentile(t, 50), "p95": percentile(t, 95), "mean": mean(t) if t else None}
        for m, t in times.items()
    }
