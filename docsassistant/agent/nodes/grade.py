"""Grade all newly retrieved chunks in one structured call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import fit_chunks
from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.nodes.common import chunks_by_ids, traced
from docsassistant.agent.prompts import GRADE_SYSTEM, format_documents, grade_request
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
        return {"sufficient": False, "trace": [event("grade", relevant=0, total=0, ids=[])]}
    new = fit_chunks(new, ctx.limits.prompt_budget - 600, per_chunk_chars=1200)
    request = grade_request(state["question"], format_documents(new, max_chars=1200))
    parsed, raw = invoke_structured(
        ctx.llm, ChunkGrades, [SystemMessage(GRADE_SYSTEM), HumanMessage(request)]
    )
    trace: list[dict[str, Any]] = []
    if isinstance(parsed, ChunkGrades):
        numbers = [n for n in dict.fromkeys(parsed.relevant) if 1 <= n <= len(new)]
        relevant = [new[n - 1]["chunk_id"] for n in numbers]
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
    trace.append(event("grade", relevant=len(relevant), total=len(new), ids=relevant, sufficient=sufficient))
    return {
        "relevant_ids": relevant,
        "sufficient": sufficient,
        "new_chunk_ids": [],
        "trace": trace,
        **usage(raw),
    }
