"""Answer evaluation: run the agent over a QA set and measure what a reader would see.

Per question: did the agent answer (with citations), count, decline or fail; are the cited
documents among the expected sources; was the answer grounded; which flags; how many model
calls and prompt tokens; how long the turn took. Per question type: the same, summed up.
Works with whatever Ollama is configured (`docsassistant eval answers`), and with the
test fake.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from docsassistant.agent.llm import ModelUnavailable
from docsassistant.agent.nodes.run_sql import FACT_SOURCE
from docsassistant.config import Settings, get_settings
from docsassistant.evaluation import QAQuestion

RunTurn = Callable[..., dict[str, Any]]


class AnswerResult(BaseModel):
    """One question's turn, as measured."""

    id: str
    type: str
    question: str
    outcome: str  # answered (cites a source) | counted | declined | failed
    cited_sources: list[str]
    expected_sources: list[str]
    citation_valid: bool | None  # every cited source is expected; None: nothing cited or expected
    expected_found: bool | None  # at least one expected source is cited; None: nothing expected
    grounded: bool
    flags: list[str]
    model_calls: int
    prompt_tokens: int
    latency_s: float
    stop_reason: str | None = None
    answer: str = ""


class TypeSummary(BaseModel):
    """The results of one question type."""

    type: str
    questions: int
    outcomes: dict[str, int]
    citation_validity: float | None  # share of answers citing only expected sources
    expected_found_rate: float | None
    grounded_rate: float
    flags: dict[str, int]
    model_calls_mean: float
    model_calls_max: int
    prompt_tokens_mean: float
    latency_p50_s: float
    latency_max_s: float


class AnswerReport(BaseModel):
    model: str
    results: list[AnswerResult]
    by_type: list[TypeSummary]


def same_source(cited: str, expected: str, component: str | None) -> bool:
    """A cited path matches an expected one with or without the component folder prefix."""
    candidates = {cited, f"{component}/{cited}" if component else cited}
    return expected in candidates or any(c.endswith("/" + expected) for c in candidates)


def measure(question: QAQuestion, record: dict[str, Any], latency_s: float) -> AnswerResult:
    """One finished turn record turned into an `AnswerResult`."""
    citations = record.get("citations") or []
    # A count's source is the index statistics, not a page: such an answer is "counted".
    cited = list(
        dict.fromkeys(c.get("source_path") or "" for c in citations if c.get("source_path") != FACT_SOURCE)
    )
    components = {c.get("source_path"): c.get("component") for c in citations}
    flags = [f.get("kind") or f.get("name") or "" for f in record.get("flags") or []]

    def expected(path: str) -> bool:
        return any(same_source(path, e, components.get(path)) for e in question.sources)

    counted = any(
        e.get("type") == "tool_call" and e.get("tool") == "count_chunks" for e in record.get("trace") or []
    )
    if record.get("stop_reason") and not citations:
        outcome = "failed"
    elif cited:
        outcome = "answered"
    elif counted:
        outcome = "counted"
    else:
        outcome = "declined"
    return AnswerResult(
        id=question.id,
        type=question.type,
        question=question.question,
        outcome=outcome,
        cited_sources=cited,
        expected_sources=list(question.sources),
        citation_valid=all(expected(p) for p in cited) if cited and question.sources else None,
        expected_found=any(expected(p) for p in cited) if question.sources else None,
        grounded="grounded" in flags,
        flags=flags,
        model_calls=int(record.get("model_calls") or 0),
        prompt_tokens=int(record.get("prompt_tokens") or 0),
        latency_s=round(latency_s, 3),
        stop_reason=record.get("stop_reason"),
        answer=record.get("answer") or "",
    )


def summarise(results: list[AnswerResult]) -> list[TypeSummary]:
    """Per question type, in the order types first appear."""
    summaries = []
    for type_ in dict.fromkeys(r.type for r in results):
        rows = [r for r in results if r.type == type_]
        valid = [r.citation_valid for r in rows if r.citation_valid is not None]
        found = [r.expected_found for r in rows if r.expected_found is not None]
        latencies = [r.latency_s for r in rows]
        summaries.append(
            TypeSummary(
                type=type_,
                questions=len(rows),
                outcomes=dict(Counter(r.outcome for r in rows)),
                citation_validity=_share(valid),
                expected_found_rate=_share(found),
                grounded_rate=round(sum(r.grounded for r in rows) / len(rows), 3),
                flags=dict(Counter(f for r in rows for f in r.flags)),
                model_calls_mean=round(statistics.fmean(r.model_calls for r in rows), 2),
                model_calls_max=max(r.model_calls for r in rows),
                prompt_tokens_mean=round(statistics.fmean(r.prompt_tokens for r in rows), 1),
                latency_p50_s=round(statistics.median(latencies), 3),
                latency_max_s=round(max(latencies), 3),
            )
        )
    return summaries


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def evaluate_answers(
    questions: list[QAQuestion],
    *,
    settings: Settings | None = None,
    run: RunTurn | None = None,
    progress: Callable[[int, int], None] | None = None,
    **run_kwargs: Any,
) -> AnswerReport:
    """Ask every question in a new conversation (the real agent, the configured model)."""
    settings = settings or get_settings()
    if run is None:
        from docsassistant.agent.runner import run_turn

        run = run_turn
    results = []
    for i, question in enumerate(questions, 1):
        start = time.perf_counter()
        try:
            record = run(question.question, None, question.component, settings=settings, **run_kwargs)
        except ModelUnavailable:
            raise  # Ollama is not there: one clear error, not a table of failures
        except Exception as exc:  # one broken turn must not lose the others' results
            record = {"stop_reason": f"{type(exc).__name__}: {exc}"}
        results.append(measure(question, record, time.perf_counter() - start))
        if progress:
            progress(i, len(questions))
    return AnswerReport(model=settings.chat_model, results=results, by_type=summarise(results))
