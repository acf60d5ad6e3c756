"""Retrieval evaluation: the docs question set and BEIR folders.

Two kinds of question sets:

* **Docs QA** (`docs_qa_dev.jsonl` format): each question names the files that answer
  it. Per question we compute source recall@k (the fraction of expected files among the
  hits' `source_path`) and the reciprocal rank of the first hit from an expected file,
  then aggregate per question type. `count` and `unanswerable` questions have no
  answer-bearing file, so they get their own, meaningful figures instead of recall: for
  `count`, the share of hits inside the counted folder and whether the store's document
  count for that folder equals the expected answer; for `unanswerable`, the top hit's
  scores, set against those of answerable questions (is there a threshold that separates
  them?).
* **BEIR** (corpus.jsonl, queries.jsonl, qrels/test.tsv): the corpus is indexed into its
  own component through the ingest module's chunking, embedding and writing, and
  chunk-level hits are collapsed to documents (best chunk wins) before ranx computes
  nDCG@10, recall@k and MRR@k.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import (
    EMBED_GROUP,
    FileResult,
    IngestReport,
    PendingDocument,
    Progress,
    ProgressCallback,
    embed_and_write,
    index_paths,
    known_documents,
    validate_component,
)
from docsassistant.search import MAX_K, list_components, search_docs
from docsassistant.store import open_store

QUESTION_TYPES = ("single", "multi", "count", "unanswerable")
ANSWERABLE = ("single", "multi")
SearchFn = Callable[..., list[dict]]


# --------------------------------------------------------------------------- metrics


def source_recall(expected: Iterable[str], retrieved: Iterable[str]) -> float | None:
    """Fraction of the expected sources present in `retrieved`; None when nothing is expected."""
    wanted = set(expected)
    if not wanted:
        return None
    return len(wanted & set(retrieved)) / len(wanted)


def reciprocal_rank(expected: Iterable[str], retrieved: list[str]) -> float:
    """1/rank of the first retrieved item that is expected (ranks from 1); 0 if none is."""
    wanted = set(expected)
    for rank, item in enumerate(retrieved, 1):
        if item in wanted:
            return 1.0 / rank
    return 0.0


def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in 0..100); None for an empty list."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


_MARKUP = re.compile(r"[`*]")
_SPACE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Lower-case, no backticks or asterisks, whitespace collapsed (for evidence matching)."""
    return _SPACE.sub(" ", _MARKUP.sub("", text)).strip().lower()


def evidence_found(evidence: list[str], contents: list[str]) -> float | None:
    """Fraction of evidence strings found (normalised substring match) in any hit's content.

    Approximate: the loaders rewrite some markup (links, tables, HTML), so a miss can
    be a formatting difference rather than a retrieval miss; a hit is always real.
    """
    if not evidence:
        return None
    haystack = normalise_text("\n".join(contents))
    return sum(normalise_text(e) in haystack for e in evidence) / len(evidence)


# --------------------------------------------------------------------------- docs QA


@dataclass
class QAQuestion:
    id: str
    question: str
    type: str
    component: str | None = None
    sources: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    answer: str = ""
    scope: str | None = None
    split: str | None = None  # dev | test (None in files without splits)
    paraphrase: bool = False  # worded without the answering passage's content words


def load_qa(path: Path | str) -> list[QAQuestion]:
    """Read a docs QA file (one JSON object a line); raise ValueError naming the bad line."""
    path = Path(path)
    questions: list[QAQuestion] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            item = QAQuestion(
                id=str(raw["id"]),
                question=str(raw["question"]),
                type=str(raw["type"]),
                component=raw.get("component") or None,
                sources=list(raw.get("sources") or []),
                evidence=list(raw.get("evidence") or []),
                answer=str(raw.get("answer", "")),
                scope=raw.get("scope"),
                split=raw.get("split"),
                paraphrase=bool(raw.get("paraphrase", False)),
            )
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a QA record ({exc}).") from None
        if item.type not in QUESTION_TYPES:
            raise ValueError(f"{path}:{number}: unknown question type {item.type!r}.")
        questions.append(item)
    if not questions:
        raise ValueError(f"{path} holds no questions.")
    return questions


def component_folders(corpus_dir: Path | str) -> list[str]:
    """The top-level folders of a corpus, each indexed as the component of that name."""
    corpus_dir = Path(corpus_dir)
    return sorted(p.name for p in corpus_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def index_corpus(
    corpus_dir: Path | str,
    *,
    only_missing: bool = True,
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
) -> dict[str, IngestReport]:
    """Index each top-level folder of `corpus_dir` as its component (base = `corpus_dir`).

    With `only_missing`, components the store already has are left alone.
    """
    settings = settings or get_settings()
    corpus_dir = Path(corpus_dir)
    present = set(list_components(settings)) if only_missing else set()
    reports: dict[str, IngestReport] = {}
    for name in component_folders(corpus_dir):
        component = validate_component(name)
        if component in present:
            continue
        reports[component] = index_paths(
            [corpus_dir / name], component, base=corpus_dir, settings=settings, progress=progress
        )
    return reports


@dataclass
class QuestionResult:
    id: str
    type: str
    component: str | None
    question: str
    sources: list[str]
    retrieved: list[str]  # source_path of each hit, best first (one per chunk)
    recall: float | None
    rr: float | None
    hit: bool | None  # at least one expected source in the top k
    all_found: bool | None  # every expected source in the top k
    evidence: float | None
    top_score: float | None
    top_similarity: float | None
    in_scope: float | None = None  # count questions: share of hits under `scope`
    store_count: int | None = None  # count questions: documents under `scope` in the store
    expected_count: int | None = None
    context_chars: int = 0  # characters of text in the k hits (what an answering model reads)
    latency_ms: float = 0.0


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return mean(kept) if kept else None


def _store_count(scope: str, component: str | None, settings: Settings) -> int:
    """Documents under folder `scope` with the extensions the counting questions count."""
    engine = open_store(settings, check=False)
    sql = sa.text(
        "SELECT count(*) FROM documents WHERE starts_with(source_path, :prefix) "
        "AND (source_path LIKE '%.md' OR source_path LIKE '%.adoc') "
        "AND (CAST(:c AS text) IS NULL OR component = :c)"
    )
    with engine.connect() as conn:
        return int(conn.execute(sql, {"prefix": scope.rstrip("/") + "/", "c": component}).scalar_one())


def evaluate_question(
    item: QAQuestion, k: int, *, settings: Settings, search: SearchFn = search_docs
) -> QuestionResult:
    start = time.perf_counter()
    hits = search(item.question, item.component, k, settings=settings)
    latency_ms = (time.perf_counter() - start) * 1000
    retrieved = [h["source_path"] for h in hits]
    top = hits[0] if hits else {}
    answerable = item.type in ANSWERABLE and bool(item.sources)
    result = QuestionResult(
        id=item.id,
        type=item.type,
        component=item.component,
        question=item.question,
        sources=item.sources,
        retrieved=retrieved,
        recall=source_recall(item.sources, retrieved) if answerable else None,
        rr=reciprocal_rank(item.sources, retrieved) if answerable else None,
        hit=bool(set(item.sources) & set(retrieved)) if answerable else None,
        all_found=set(item.sources) <= set(retrieved) if answerable else None,
        evidence=evidence_found(item.evidence, [h["content"] for h in hits]) if answerable else None,
        top_score=top.get("score"),
        top_similarity=top.get("similarity"),
        context_chars=sum(len(h["content"]) for h in hits),
        latency_ms=latency_ms,
    )
    if item.type == "count" and item.scope:
        prefix = item.scope.rstrip("/") + "/"
        result.in_scope = sum(p.startswith(prefix) for p in retrieved) / len(retrieved) if retrieved else 0.0
        result.store_count = _store_count(item.scope, item.component, settings)
        if item.answer.strip().isdigit():
            result.expected_count = int(item.answer.strip())
    return result


def aggregate(results: list[QuestionResult]) -> dict[str, dict]:
    """Per-type figures (and `answerable` = single + multi); keys absent when meaningless."""
    groups: dict[str, list[QuestionResult]] = {t: [r for r in results if r.type == t] for t in QUESTION_TYPES}
    groups["answerable"] = [r for r in results if r.type in ANSWERABLE]
    out: dict[str, dict] = {}
    answerable_sims = [r.top_similarity for r in groups["answerable"] if r.top_similarity is not None]
    for name, rows in groups.items():
        if not rows:
            continue
        agg: dict[str, object] = {"n": len(rows)}
        if name in (*ANSWERABLE, "answerable"):
            agg["recall"] = _mean(r.recall for r in rows)
            agg["hit_rate"] = _mean(float(r.hit) for r in rows if r.hit is not None)
            agg["all_found_rate"] = _mean(float(r.all_found) for r in rows if r.all_found is not None)
            agg["mrr"] = _mean(r.rr for r in rows)
            agg["evidence"] = _mean(r.evidence for r in rows)
            agg["top_similarity_mean"] = _mean(r.top_similarity for r in rows)
            agg["top_similarity_min"] = (
                min(answerable_sims) if name == "answerable" and answerable_sims else None
            )
        elif name == "count":
            agg["in_scope"] = _mean(r.in_scope for r in rows)
            checked = [r for r in rows if r.expected_count is not None]
            agg["store_count_matches"] = sum(r.store_count == r.expected_count for r in checked)
            agg["store_count_checked"] = len(checked)
        elif name == "unanswerable":
            sims = [r.top_similarity for r in rows if r.top_similarity is not None]
            agg["top_score_mean"] = _mean(r.top_score for r in rows)
            agg["top_similarity_mean"] = _mean(sims)
            agg["top_similarity_max"] = max(sims) if sims else None
            # How many answerable questions score below the most confident unanswerable
            # one: 0 means a similarity threshold could tell them apart on this set.
            agg["answerable_below_max"] = (
                sum(s <= max(sims) for s in answerable_sims) if sims and answerable_sims else None
            )
        agg["context_chars_mean"] = _mean(float(r.context_chars) for r in rows)
        agg["latency_ms_mean"] = _mean(r.latency_ms for r in rows)
        out[name] = agg
    return out


def evaluate_qa(
    questions: list[QAQuestion],
    k: int = 5,
    *,
    settings: Settings | None = None,
    search: SearchFn = search_docs,
    progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Run every question; return {"k", "settings", "questions": [...], "aggregate": {...}}."""
    settings = settings or get_settings()
    _warm_up(settings, search)
    results = []
    for i, item in enumerate(questions, 1):
        results.append(evaluate_question(item, k, settings=settings, search=search))
        if progress:
            progress(i, len(questions))
    return {
        "k": k,
        "settings": settings_summary(settings),
        "questions": [asdict(r) for r in results],
        "aggregate": aggregate(results),
    }


def _warm_up(settings: Settings, search: SearchFn) -> None:
    """Load the embedding model before the first timed search (only for the real search)."""
    if getattr(search, "func", search) is search_docs:  # also a functools.partial of it
        from docsassistant.embeddings import get_embedder

        get_embedder(settings).embed_query("warm-up")


def settings_summary(settings: Settings) -> dict:
    return {
        "embedding_model": settings.embedding_model,
        "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap,
        "embedding_batch_size": settings.embedding_batch_size,
    }


# --------------------------------------------------------------------------- BEIR


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
    _warm_up(settings, search)
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
