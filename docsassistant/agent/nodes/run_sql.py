"""`count_chunks` calls, run through the read-only role (called by the tool executor).

A count is a fact from the database, not a passage to grade: it becomes one evidence
item ("index statistics") that an answer can cite, also beside search results.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from langchain_core.messages import ToolMessage

from docsassistant.agent.checks.figures import states_a_figure_of, unbacked_numbers
from docsassistant.agent.citations import check_citations
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import bogus_citation, event
from docsassistant.agent.nodes.common import CallResult
from docsassistant.agent.state import AgentState

FACT_SOURCE = "index statistics (count_chunks)"


# "How many documents mention Redis?": what the question counts the mentions of.
_MENTIONS = re.compile(
    r"\b(?:mention(?:s|ed|ing)?|contain(?:s|ed|ing)?|refer(?:s|red)? to|references?|"
    r"talks? about|discuss(?:es|ed)?|(?:are|is) about)\s+(?:the\s+(?:words?|terms?|phrase)\s+)?(.+?)[\s?.!]*$",
    re.I,
)


# "How many documents does ops contain in total?" names no term: these words alone are none.
_NO_TERM = frozenset(
    [
        "in",
        "total",
        "overall",
        "altogether",
        "all",
        "now",
        "currently",
        "today",
        "so",
        "far",
        "right",
        "at",
        "the",
        "moment",
        "of",
        "them",
        "it",
        "this",
        "that",
        "there",
    ]
)


def mentioned_term(question: str) -> str | None:
    """The words a "how many … mention X" question asks to count the mentions of."""
    match = _MENTIONS.search(question)
    term = match.group(1).strip(" \"'“”‘’`") if match else ""
    return term if term and not set(term.lower().split()) <= _NO_TERM else None


def fact_id(component: str | None, mentioning: str | None = None) -> int:
    """A stable negative chunk id per counted scope (real chunk ids are positive)."""
    scope = (component or "*") + (f"|{mentioning.lower()}" if mentioning else "")
    return -1 - zlib.crc32(scope.encode()) % 1_000_000_000


def run_count(
    call_id: str, args: dict[str, Any], state: AgentState, ctx: AgentContext, seen: set[int]
) -> CallResult:
    """Count one component (or all); an unknown component is an error naming the known ones.

    A question that asks how many documents mention something is counted with those words
    even when the model left `mentioning` out: the index's size does not answer it (QA round
    8a scenario 47b)."""
    call = {"id": call_id, "name": "count_chunks"}
    component = (state.get("component") or args.get("component") or "").strip().lower() or None
    question = state.get("standalone_question") or state.get("question") or ""
    mentioning = (args.get("mentioning") or "").strip() or mentioned_term(question)
    if fact_id(component, mentioning) in seen:
        return CallResult.error(call, "Already counted this turn: the result is above.")
    trace = [
        event(
            "tool_call",
            tool="count_chunks",
            args={"component": component} | ({"mentioning": mentioning} if mentioning else {}),
        )
    ]
    result = ctx.count(component, mentioning)
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
    mentioning = result.get("mentioning")
    scope = f"The {component} component" if component else "The whole index"
    counted = f"{result['chunks']} chunks in {result['documents']} documents"
    if mentioning:
        where = f"In the {component} component" if component else "In the whole index"
        content = f"{where}, {counted} mention “{mentioning}”."
    else:
        content = f"{scope} has {counted}."
    return {
        "chunk_id": fact_id(component, mentioning),
        "source_path": FACT_SOURCE,
        "title": "Index statistics",
        "section": component or "all components",
        "component": component or "",
        "content": content,
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
