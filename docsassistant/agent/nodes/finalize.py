"""End the turn: compose what is said when no answer was generated, and store the
whole turn (answer, sources, verification, flags, trace, costs) in the state."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import flag
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.state import AgentState

NOT_COVERED = (
    "I could not find this in the documentation. I searched for: {queries}. "
    "Try rephrasing, or check that the relevant documents are indexed."
)

NO_REPLY = "The model returned an empty reply. Please try again or rephrase the question."


@traced("no_answer")
def no_answer(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Say plainly that the documentation does not cover the question (no model call)."""
    queries = ", ".join(f"“{q}”" for q in state.get("queries", [])) or "nothing"
    trace = [flag("no_relevant_docs", "No relevant documentation was found.")]
    return {"answer": NOT_COVERED.format(queries=queries), "citations": [], "sources": [], "trace": trace}


@traced("finalize")
def finalize(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Record the finished turn; the answer joins the conversation history."""
    answer = state.get("answer") or ""
    trace: list[dict[str, Any]] = []
    if state.get("stop_reason") and not answer:
        answer = f"I had to stop before answering: {state['stop_reason']}."
    elif not answer.strip():  # the model replied with nothing: never show an empty answer
        answer = NO_REPLY
        if not any(e.get("kind") == "empty_answer" for e in state.get("trace", [])):
            trace.append(flag("empty_answer", "The model returned an empty answer."))
    # A budget stop was flagged where it happened (`traced`, the runner's step limit); a
    # model failure is an `error` event, not a budget. An answer cut off before its
    # verification must not look checked.
    update: dict[str, Any] = {"answer": answer, "messages": [AIMessage(answer)]}
    if state.get("stop_reason") and state.get("sources") and not state.get("verification"):
        trace.append(flag("not_verified", f"The answer was not verified: {state['stop_reason']}."))
        update["verification"] = {"status": "unverified", "claims": []}
    return {**update, "trace": trace}


def turn_record(state: AgentState) -> dict[str, Any]:
    """Everything needed to render a turn again without re-running it."""
    return {
        "question": state.get("question", ""),
        "component": state.get("component"),
        "answer": state.get("answer", ""),
        "citations": state.get("citations", []),
        "sources": state.get("sources", []),
        "verification": state.get("verification") or {"status": "not_applicable", "claims": []},
        # Flags are trace events; the record lists them apart so a view shows them at a glance.
        "flags": [e for e in state.get("trace", []) if e["type"] == "flag"],
        "trace": state.get("trace", []),
        "queries": state.get("queries", []),
        "model_calls": state.get("model_calls", 0),
        "prompt_tokens": state.get("prompt_tokens", 0),
        "stop_reason": state.get("stop_reason"),
        "started_at": state.get("started_at"),
        "duration_ms": round((time.time() - state["started_at"]) * 1000, 1)
        if state.get("started_at")
        else None,
    }
