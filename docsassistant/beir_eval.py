"""Retrieval evaluation on a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv).

The corpus is indexed into its own component through the ingest module's chunking,
embedding and writing, and chunk-level hits are collapsed to documents (best chunk wins)
before ranx computes nDCG@10, recall@k and MRR@k.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import SearchFn, settings_summary, warm_up_search
from docsassistant.ingest import (
    EMBED_GROUP,
    FileResult,
    IngestReport,
    PendingDocument,
    Progress,
    ProgressCallback,
    embed_and_write,
    known_documents,
    validate_component,
)
from docsassistant.search import MAX_K, search_docs
from docsassistant.store import open_store


@dataclass
class BeirData:
    corpus: dict[str, tuple[str, str]]  # _id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # query id -> {doc id: relevance}, positives only


def _read_jsonl(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg}).") from None


def beir_missing(folder: Path | str, split: str = "test") -> list[str]:
    """The BEIR files missing from `folder` (empty when it is complete)."""
    folder = Path(folder)
    needed = ("corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv")
    return [name for name in needed if not (folder / name).is_file()]


def load_beir(folder: Path | str, split: str = "test") -> BeirData:
    """Read a BEIR folder. Judgments with relevance 0 are dropped (they mark non-relevant)."""
    folder = Path(folder)
    missing = beir_missing(folder, split)
    if missing:
        raise ValueError(f"{folder} is not a BEIR folder: missing {', '.join(missing)}.")
    corpus = {
        str(r["_id"]): (str(r.get("title") or "").strip(), str(r.get("text") or "").strip())
        for r in _read_jsonl(folder / "corpus.jsonl")
    }
    queries = {str(r["_id"]): str(r["text"]) for r in _read_jsonl(folder / "queries.jsonl")}
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels" / f"{split}.tsv").open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            parts = line.rstrip("\n").split("\t")
            if (number == 1 and parts[0] == "query-id") or not line.strip():
                continue
            if len(parts) < 3:
                raise ValueError(f"{folder}/qrels/{split}.tsv:{number}: expected 3 tab-separated fields.")
            qid, doc_id, score = parts[0], parts[1], int(parts[2])
            if score > 0:
                qrels.setdefault(qid, {})[doc_id] = score
    return BeirData(corpus, queries, qrels)


def beir_component(folder: Path | str) -> str:
    """`beir-<name>`: the folder's name, or its parent's when the folder is called `beir`."""
    folder = Path(folder).resolve()
    name = folder.parent.name if folder.name == "beir" else folder.name
    name = re.sub(r"[^a-z0-9_.-]+", "-", name.lower().removeprefix("beir_").removeprefix("beir-"))
    return validate_component(f"beir-{name}"[:64])


def _record_document(title: str, text: str):
    from docsassistant.loaders import LoadedDocument, Section

    return LoadedDocument(title=title, media_type="text/plain", sections=[Section(path=[], text=text)])


def index_beir(
    data: BeirData,
    component: str,
    *,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Index BEIR records (`_id` as source_path) into `component`, like files are indexed.

    Idempotent by content hash; documents of the component that are not in the corpus
    are removed so they cannot distort the metrics.
    """
    from docsassistant.chunking import chunk_document

    settings = settings or get_settings()
    component = validate_component(component)
    engine = open_store(settings)
    known = known_documents(engine, component)
    report = IngestReport(component)
    total = len(data.corpus)

    def finish(result: FileResult) -> None:
        report.results.append(result)
        if progress:
            progress(Progress(len(report.results), total, result))

    def flush(pending: list[PendingDocument]) -> None:
        embed_and_write(engine, component, pending, settings, finish)

    pending: list[PendingDocument] = []
    for doc_id, (title, text) in data.corpus.items():
        raw = f"{title}\x00{text}".encode()
        digest = hashlib.sha256(raw).hexdigest()
        existing = known.get(doc_id)
        if existing and existing[1] == digest:
            finish(FileResult(doc_id, "unchanged"))
            continue
        if not text:
            finish(FileResult(doc_id, "failed", reason="Empty text."))
            continue
        doc = _record_document(title or doc_id, text)
        drafts = chunk_document(doc, settings.chunk_size, settings.chunk_overlap)
        pending.append(PendingDocument(Path(doc_id), doc_id, digest, len(raw), doc, drafts, "beir"))
        if sum(len(p.drafts) for p in pending) >= EMBED_GROUP:
            flush(pending)
            pending = []
    flush(pending)
    stale = [known[s][0] for s in known if s not in data.corpus]
    if stale:
        with engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM documents WHERE id = ANY(:ids)"), {"ids": stale})
        for source_path in sorted(s for s in known if s not in data.corpus):
            finish(FileResult(source_path, "removed"))
    return report


def document_run(hits: list[dict], limit: int | None = None) -> dict[str, float]:
    """Collapse chunk hits (best first) to documents: each document keeps its best rank.

    The scores returned are rank-based (n, n-1, …) so ranx sees exactly our order; RRF
    scores can tie, and ranx would break such ties its own way.
    """
    order: list[str] = []
    for hit in hits:
        if hit["source_path"] not in order:
            order.append(hit["source_path"])
    if limit is not None:
        order = order[:limit]
    return {doc: float(len(order) - i) for i, doc in enumerate(order)}


def beir_metric_names(k: int, recall_at: Sequence[int] = ()) -> list[str]:
    """nDCG@10, recall@k and MRR@k, plus recall at each cut-off in `recall_at` (e.g. 5)."""
    extra = [f"recall@{r}" for r in sorted(set(recall_at)) if r != k]
    return ["ndcg@10", *extra, f"recall@{k}", f"mrr@{k}"]


def ranx_metrics(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    k: int,
    recall_at: Sequence[int] = (),
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Mean metrics and per-query metrics with ranx (queries without hits score 0)."""
    from ranx import Qrels, Run, evaluate

    names = beir_metric_names(k, recall_at)
    full_run = {qid: run.get(qid) or {} for qid in qrels}
    # ranx refuses empty rankings: a query with no hit gets one sentinel doc that is never relevant.
    full_run = {qid: docs or {"\x00no-hit": 0.0} for qid, docs in full_run.items()}
    ranx_run = Run(full_run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's NumbaTypeSafetyWarning on every call
        # One thread: a few hundred queries gain nothing from numba's parallel loops, and its
        # fallback threading layer (workqueue) is not safe under concurrent callers. A one-off
        # MRR of 0.0 for a first-ranked hit was seen once in a long test run (not reproduced).
        evaluate(Qrels(qrels), ranx_run, names, make_comparable=True, threads=1)
    per_query = {qid: {m: float(ranx_run.scores[m][qid]) for m in names} for qid in qrels}
    means = {m: float(sum(v[m] for v in per_query.values()) / len(per_query)) for m in names}
    return means, per_query


def evaluate_beir(
    data: BeirData,
    component: str,
    k: int = 10,
    *,
    settings: Settings | None = None,
    search: SearchFn = search_docs,
    progress: Callable[[int, int], None] | None = None,
    recall_at: Sequence[int] = (),
) -> dict:
    """Search every judged query (asking for k*3 chunks, collapsed to documents) and score it;
    `recall_at` adds recall at those cut-offs (e.g. 5) to nDCG@10, recall@k and MRR@k."""
    settings = settings or get_settings()
    warm_up_search(settings, search)
    chunk_k = min(k * 3, MAX_K)
    judged = {qid: rels for qid, rels in data.qrels.items() if qid in data.queries}
    run: dict[str, dict[str, float]] = {}
    latencies = []
    for i, qid in enumerate(judged, 1):
        start = time.perf_counter()
        hits = search(data.queries[qid], component, chunk_k, settings=settings)
        latencies.append((time.perf_counter() - start) * 1000)
        run[qid] = document_run(hits)
        if progress:
            progress(i, len(judged))
    means, per_query = ranx_metrics(judged, run, k, recall_at)
    return {
        "component": component,
        "k": k,
        "chunk_k": chunk_k,
        "settings": settings_summary(settings),
        "queries": len(judged),
        "queries_without_judgments": len([q for q in data.queries if q not in data.qrels]),
        "documents": len(data.corpus),
        "metrics": means,
        "latency_ms_mean": mean(latencies) if latencies else None,
        "per_query": {
            qid: {
                **per_query[qid],
                "ranking": list(run[qid])[:k],
                "relevant": sorted(judged[qid]),
            }
            for qid in judged
        },
    }
