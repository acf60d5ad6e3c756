"""End the turn: compose what is said when no answer was generated, and build the
turn's record (answer, sources, verification, flags, trace, costs) from the state."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import STOP_PREFIX, stopped_answer
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import flag
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.records import Flag, TraceEvent, TurnRecord, Verification, node_timings
from docsassistant.agent.state import AgentState

NOT_COVERED = (
    "I could not find this in the documentation. I searched for: {queries}. "
    "Try rephrasing, or check that the relevant documents are indexed."
)

NO_SEARCH = (
    "I could not search the documentation for this question: no search could run ({why}). "
    "Nothing was looked up, so this is not a sign that the documentation lacks the answer; "
    "try again, or ask a shorter question."
)

NO_REPLY = "The model returned an empty reply. Please try again or rephrase the question."


@traced("no_answer")
def no_answer(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Say plainly that the documentation does not cover the question (no model call), or,
    when no search ran at all (every call refused or failed), that it was never searched."""
    if not state.get("queries"):
        errors = [
            e["message"] for e in state.get("trace", []) if e.get("type") == "error" and e.get("message")
        ]
        why = errors[-1] if errors else "no search was made"
        trace = [flag("search_failed", "No search could run; the documentation was not consulted.")]
        return {"answer": NO_SEARCH.format(why=why), "citations": [], "sources": [], "trace": trace}
    queries = ", ".join(f"“{q}”" for q in state.get("queries", [])) or "nothing"
    trace = [flag("no_relevant_docs", "No relevant documentation was found.")]
    return {"answer": NOT_COVERED.format(queries=queries), "citations": [], "sources": [], "trace": trace}


@traced("finalize")
def finalize(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Record the finished turn; the answer joins the conversation history."""
    answer = state.get("answer") or ""
    trace: list[dict[str, Any]] = []
    failed = False
    if state.get("stop_reason") and not answer:
        answer = f"{STOP_PREFIX}{state['stop_reason']}."
        # No answer at all (an HTTP error, the time budget spent before any draft): the turn
        # failed, so `ask` exits 1 and a script sees it; a draft cut short is still an answer.
        failed = True
    elif not answer.strip():  # the model replied with nothing: never show an empty answer
        answer = NO_REPLY
        if not any(e.get("kind") == "empty_answer" for e in state.get("trace", [])):
            trace.append(flag("empty_answer", "The model returned an empty answer."))
    # A budget stop was flagged where it happened (`traced`, the runner's step limit); a
    # model failure is an `error` event, not a budget. An answer cut off before its
    # verification must not look checked.
    message = stopped_answer(answer) if failed else AIMessage(answer)
    update: dict[str, Any] = {"answer": answer, "messages": [message], "failed": failed}
    # The next turn's follow-up points back to this turn's subject, or, if this one failed
    # before it had a standalone question, to the last turn's.
    update["earlier_standalone"] = state.get("standalone_question") or state.get("earlier_standalone")
    if state.get("stop_reason") and state.get("sources") and not state.get("verification"):
        trace.append(flag("not_verified", f"The answer was not verified: {state['stop_reason']}."))
        update["verification"] = {"status": "unverified", "claims": []}
    return {**update, "trace": trace}


def _without_set_aside_injections(
    flags: list[Flag], trace: list[TraceEvent], state: AgentState
) -> list[Flag]:
    """`injection_suspected` beside the answer only for a chunk that could shape it: one
    the grader judged irrelevant never reached the answer's prompt, so its flag would
    warn about a page the answer does not use (QA round 8a scenario 52). The trace keeps it."""
    graded = {i for e in trace if e.type == "grade" for i in (e.get("graded") or [])}
    relevant = set(state.get("relevant_ids") or [])
    used = {s.get("chunk_id") for s in state.get("sources") or []}
    set_aside = graded - relevant - used
    return [f for f in flags if f.kind != "injection_suspected" or f.get("chunk_id") not in set_aside]


def turn_record(state: AgentState, **known: Any) -> TurnRecord:
    """The turn as a typed record, built from the graph state: the one place that maps
    state to record. `known` carries what the runner knows beside the state (thread_id,
    index, status, error)."""
    trace = [TraceEvent.model_validate(e) for e in state.get("trace") or []]
    flags = [Flag.model_validate(e.model_dump()) for e in trace if e.type == "flag"]
    # A regenerated answer passes generate twice and would carry its flags twice.
    flags = list({(f.kind, f.message): f for f in flags}.values())
    flags = _without_set_aside_injections(flags, trace, state)
    if known.get("status") == "failed":
        # A failed turn's answer is the stop message, not the verified draft: `grounded`
        # would vouch for text nobody is shown (the trace still says it was verified).
        flags = [f for f in flags if f.kind != "grounded"]
    started = state.get("started_at")
    return TurnRecord(
        question=state.get("question", ""),
        standalone_question=state.get("standalone_question"),
        component=state.get("component"),
        answer=state.get("answer") or "",
        citations=state.get("citations") or [],
        sources=state.get("sources") or [],
        verification=state.get("verification") or Verification(),
        # Flags are trace events; the record lists them apart so a view shows them at a glance.
        flags=flags,
        trace=trace,
        queries=state.get("queries") or [],
        model_calls=state.get("model_calls") or 0,
        prompt_tokens=state.get("prompt_tokens") or 0,
        stop_reason=state.get("stop_reason"),
        started_at=started,
        duration_ms=round((time.time() - started) * 1000, 1) if started else None,
        timings=node_timings(trace),
        **known,
    )
