"""Answers shown without the usual checks, always with a flag that says so."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from docsassistant.agent.citations import check_citations
from docsassistant.agent.context import AgentContext
from docsassistant.agent.direct_replies import is_decline
from docsassistant.agent.events import bogus_citation, event, flag
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.state import AgentState


def unsourced(reply: str) -> tuple[str, list[dict[str, Any]]]:
    """A reply given without sources, with its citation markers removed (they point at
    nothing), and the `bogus_citation` flag when there were any."""
    answer, _, bogus = check_citations(reply, 0)
    return answer, [bogus_citation(bogus, "the answer has no sources")] if bogus else []


@traced("unchecked_answer")
def unchecked_answer(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """The model answered from memory and a search found nothing relevant: show its reply,
    flagged `not_from_documentation` (never grounded; no model call). A decline is shown
    as it is."""
    reply = state.get("direct_reply", "")
    if is_decline(reply):  # an out-of-scope request, confirmed by the search: no answer to flag
        found = "The model declined; a search found nothing relevant to answer from."
        return {
            "answer": reply,
            "citations": [],
            "sources": [],
            "trace": [event("decision", kind="declined", reason=found)],
        }
    detail = "The model answered without documentation; a search found nothing relevant to check it against."
    answer, flags = unsourced(reply)
    return {
        "answer": answer,
        "citations": [],
        "sources": [],
        "trace": [flag("not_from_documentation", detail), *flags],
    }


@traced("skip_verification")
def skip_verification(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Too little time is left to verify the answer: keep it, flagged `not_verified`."""
    left = max(0.0, runtime.context.time_left())
    detail = f"Answered without verification: {left:.0f} s of the turn's time budget were left."
    return {"verification": {"status": "not_verified", "claims": []}, "trace": [flag("not_verified", detail)]}
