"""Grade all newly retrieved chunks in one structured call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import estimate_tokens, fit_chunks
from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.loop import loop_cap
from docsassistant.agent.nodes.common import chunks_by_ids, traced
from docsassistant.agent.prompts import GRADE_SYSTEM, format_documents
from docsassistant.agent.schemas import ChunkGrades
from docsassistant.agent.state import AgentState

# Used only when the grader's reply cannot be parsed: keep what dense search finds close.
FALLBACK_MIN_SIMILARITY = 0.35


@traced("grade")
def grade(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Mark which new chunks are relevant and whether the evidence suffices."""
    ctx = runtime.context
    new = chunks_by_ids(state, state.get("new_chunk_ids", []))
    if not new:
        update: dict[str, Any] = {"sufficient": False, "trace": [event("grade", relevant=0, total=0, ids=[])]}
        return _with_cap_flag(state, update, ctx)
    question = state.get("standalone_question") or state["question"]
    new = fit_chunks(new, ctx.limits.prompt_budget - 600 - estimate_tokens(question), per_chunk_chars=1200)
    documents = format_documents(new, max_chars=1200)
    # The evidence in one message, the question alone and last: it never mixes with data.
    parsed, raw = invoke_structured(
        ctx.llm, ChunkGrades, [SystemMessage(GRADE_SYSTEM), HumanMessage(documents), HumanMessage(question)]
    )
    trace: list[dict[str, Any]] = []
    if isinstance(parsed, ChunkGrades):
        relevant = [new[n - 1]["chunk_id"] for n in document_numbers(parsed.relevant, len(new))]
        sufficient = parsed.sufficient and bool(relevant or state.get("relevant_ids"))
    else:
        relevant = [c["chunk_id"] for c in new if (c.get("similarity") or 0) >= FALLBACK_MIN_SIMILARITY]
        sufficient = bool(relevant)
        trace.append(
            event(
                "error",
                node="grade",
                message="The grader's reply was not valid JSON; kept the closest matches.",
            )
        )
    graded = [c["chunk_id"] for c in new]
    trace.append(
        event(
            "grade",
            relevant=len(relevant),
            total=len(new),
            ids=relevant,
            graded=graded,
            sufficient=sufficient,
        )
    )
    update = {"relevant_ids": relevant, "sufficient": sufficient, "new_chunk_ids": [], "trace": trace}
    return {**_with_cap_flag(state, update, ctx), **usage(raw)}


def document_numbers(numbers: list[int], count: int) -> list[int]:
    """The 1-based document numbers a grader meant. Models also count from 0: a 0 in the
    list means the whole list is 0-based. Out-of-range numbers are dropped."""
    unique = list(dict.fromkeys(numbers))
    if 0 in unique:
        unique = [n + 1 for n in unique]
    return [n for n in unique if 1 <= n <= count]


def _with_cap_flag(state: AgentState, update: dict[str, Any], ctx: AgentContext) -> dict[str, Any]:
    """Flag `budget_reached` when a per-turn cap ends the search loop after this grading."""
    after = {
        **state,
        **update,
        "relevant_ids": [*state.get("relevant_ids", []), *update.get("relevant_ids", [])],
    }
    reason = loop_cap(after, ctx.limits)
    flagged = any(e.get("kind") == "budget_reached" for e in state.get("trace", []))
    if reason and not flagged:
        update["trace"] = [
            *update.get("trace", []),
            event("budget_stop", node="grade", reason=reason),
            flag("budget_reached", f"Stopped searching: {reason}."),
        ]
    return update
