"""`count_chunks` calls, run through the read-only role (called by the tool executor).

A count is a fact from the database, not a passage to grade: it becomes one evidence
item ("index statistics") that an answer can cite, also beside search results.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from langchain_core.messages import ToolMessage

from docsassistant.agent.citations import check_citations
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import bogus_citation, event
from docsassistant.agent.grounding import states_a_figure_of, unbacked_numbers
from docsassistant.agent.nodes.common import CallResult
from docsassistant.agent.state import AgentState

FACT_SOURCE = "index statistics (count_chunks)"


def fact_id(component: str | None) -> int:
    """A stable negative chunk id per counted scope (real chunk ids are positive)."""
    return -1 - zlib.crc32((component or "*").encode()) % 1_000_000_000


def run_count(
    call_id: str, args: dict[str, Any], state: AgentState, ctx: AgentContext, seen: set[int]
) -> CallResult:
    """Count one component (or all); an unknown component is an error naming the known ones."""
    call = {"id": call_id, "name": "count_chunks"}
    component = (state.get("component") or args.get("component") or "").strip().lower() or None
    if fact_id(component) in seen:
        return CallResult.error(call, "Already counted this turn: the result is above.")
    trace = [event("tool_call", tool="count_chunks", args={"component": component})]
    result = ctx.count(component)
    if component and not result["chunks"]:
        known = ctx.components()
        if component not in known:
            listing = ", ".join(known) or "none yet"
            refusal = CallResult.error(call, f"Unknown component {component!r}. Known components: {listing}.")
            # That the component does not exist is the answer, a fact like a count: a reply
            # inventing a figure for it is replaced by this (QA round 8a scenario 47).
            fact = {
                **fact_chunk(result),
                "content": f"The index has no component {component!r}. Known components: {listing}.",
            }
            return refusal.model_copy(
                update={"trace": trace + refusal.trace, "chunks": [fact], "fact": True, "ran": True}
            )
    trace.append(event("tool_result", tool="count_chunks", result=result))
    message = ToolMessage(json.dumps(result), tool_call_id=call_id, name="count_chunks")
    return CallResult(message=message, trace=trace, chunks=[fact_chunk(result)], ran=True, fact=True)


def fact_chunk(result: dict[str, Any]) -> dict[str, Any]:
    """A count as an evidence item: "The ops component has 12 chunks in 3 documents."."""
    component = result.get("component") or None
    scope = f"The {component} component" if component else "The whole index"
    return {
        "chunk_id": fact_id(component),
        "source_path": FACT_SOURCE,
        "title": "Index statistics",
        "section": component or "all components",
        "component": component or "",
        "content": f"{scope} has {result['chunks']} chunks in {result['documents']} documents.",
        "score": 1.0,
        "similarity": None,
    }


def count_facts(state: AgentState) -> list[dict[str, Any]]:
    """This turn's counts (and unknown components), in the order they ran."""
    return [c for c in state.get("chunks", []) if c["chunk_id"] < 0]


def count_answer(reply: str, facts: list[dict[str, Any]], question: str) -> tuple[str, list[dict[str, Any]]]:
    """The answer to a count question, checked in code: the model's reply when every number
    it states is one a count returned (its citation markers checked against the counts), else
    the counts themselves (the model may not misstate a figure the database gave)."""
    stated = " ".join(f["content"] for f in facts)
    if not reply.strip():
        return stated, []
    answer, _, bogus = check_citations(reply, len(facts))
    trace = [bogus_citation(bogus)] if bogus else []
    if unbacked := unbacked_numbers(answer, facts, question):
        message = (
            f"The reply stated {', '.join(unbacked)}, which no count returned: answered with the counts."
        )
        return stated, [event("error", node="decide", message=message)]
    if not states_a_figure_of(answer, facts):
        message = "The reply stated none of the counted figures: answered with the counts."
        return stated, [event("error", node="decide", message=message)]
    return answer, trace
