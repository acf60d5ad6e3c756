"""The agent node: the model decides to search, count, answer directly or decline."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import SystemMessage, ToolMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import trim_history
from docsassistant.agent.calls import MalformedReply, invoke, usage, with_tools
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.nodes.common import queued_search, traced
from docsassistant.agent.prompts import AGENT_SYSTEM
from docsassistant.agent.state import AgentState
from docsassistant.agent.tools import TOOLS

KNOWN_TOOLS = {t.name for t in TOOLS}


@traced("decide")
def decide(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Ask the tool-bound model what to do next; queue its tool calls for execution.

    Malformed tool calls (unknown tool, arguments that are not an object, an empty
    query) do not crash the turn: on the first round the user's question is searched
    instead; later, the turn goes on with the evidence it has.
    """
    ctx = runtime.context
    system = SystemMessage(AGENT_SYSTEM)
    history = trim_history(state.get("messages", []), ctx.limits.prompt_budget // 2)
    trace: list[dict[str, Any]] = []
    try:
        reply = invoke(with_tools(ctx.llm, TOOLS), [system, *history, *state.get("steps", [])])
    except MalformedReply as exc:
        if state.get("steps"):
            # Mid-turn: no more tool calls; answer from the evidence so far (see after_decide).
            trace.append(
                event("error", node="decide", message=f"{exc} Answering from what was found so far.")
            )
            update = {"pending_calls": [], "trace": trace, "model_calls": 1}
            return update if state.get("relevant_ids") else {**update, "answer": _count_answer(state)}
        trace.append(event("error", node="decide", message=f"{exc} Searching the question itself instead."))
        return {**queued_search("fallback-0", state["question"]), "trace": trace, "model_calls": 1}
    pending: list[dict[str, Any]] = []
    for call in reply.tool_calls:
        args = call.get("args") if isinstance(call.get("args"), dict) else {}
        if call["name"] not in KNOWN_TOOLS:
            trace.append(
                event("error", node="decide", message=f"Ignored a call to unknown tool {call['name']!r}.")
            )
            continue
        if call["name"] == "count_chunks" and state.get("counted"):
            continue  # already answered by the read-only query; don't loop
        if call["name"] == "search_docs" and not str(args.get("query") or "").strip():
            trace.append(event("error", node="decide", message="Ignored a search_docs call without a query."))
            continue
        pending.append({"id": call.get("id") or f"call-{len(pending)}", "name": call["name"], "args": args})
    for bad in reply.invalid_tool_calls:
        trace.append(
            event(
                "error",
                node="decide",
                message=f"The model sent malformed tool-call arguments: {bad.get('error') or bad.get('args')}",
            )
        )
    first_round = not state.get("steps")
    if not pending and first_round and (reply.invalid_tool_calls or reply.tool_calls):
        # The model meant to use a tool but botched the call: search the question itself.
        trace.append(event("error", node="decide", message="Searching the question itself instead."))
        return {**queued_search("fallback-0", state["question"]), "trace": trace, **usage(reply)}
    update: dict[str, Any] = {"pending_calls": pending, "trace": trace, **usage(reply)}
    if pending:
        update["steps"] = [reply]
    elif not state.get("relevant_ids"):
        update["answer"] = str(reply.content).strip() or _count_answer(state)
    return update


def _count_answer(state: AgentState) -> str:
    """Said in code when the model returns nothing after a count (never invent a number)."""
    results = [m.content for m in state.get("steps", []) if isinstance(m, ToolMessage)]
    if not state.get("counted") or not results:
        return ""
    data = json.loads(results[-1])
    scope = f"The {data['component']} component" if data.get("component") else "The index"
    return f"{scope} has {data['chunks']} chunks in {data['documents']} documents."
