"""Retrieval evaluation on the docs question set (`docs_qa_dev.jsonl` format); BEIR folders are
in `beir_eval`.

Each question names the files that answer it. Per question we compute source recall@k (the
fraction of expected files among the hits' `source_path`) and the reciprocal rank of the first
hit from an expected file, then aggregate per question type. `count` and `unanswerable`
questions have no answer-bearing file, so they get their own, meaningful figures instead of
recall: for `count`, the share of hits inside the counted folder and whether the store's
document count for that folder equals the expected answer; for `unanswerable`, the top hit's
scores, set against those of answerable questions (is there a threshold that separates them?).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import mean

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import (
    IngestReport,
    ProgressCallback,
    index_paths,
    validate_component,
)
from docsassistant.search import list_components, search_docs
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
    warm_up_search(settings, search)
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


def warm_up_search(settings: Settings, search: SearchFn) -> None:
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
