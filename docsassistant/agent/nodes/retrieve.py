"""Run the queued `search_docs` calls and accumulate their chunks."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.nodes.common import hit_summary, traced
from docsassistant.agent.prompts import format_documents
from docsassistant.agent.safety import redact_injection, scan_for_injection
from docsassistant.agent.state import AgentState
from docsassistant.search import SearchError

MAX_K = 10  # per search: more would not fit the grading prompt


@traced("retrieve")
def retrieve(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Search for each queued call (within the per-turn search budget).

    The user's component filter wins over one the model picked; an unknown component
    from the model falls back to searching everything. Each hit is scanned for prompt
    injection; suspicious lines are redacted from the text any prompt will see.
    """
    ctx = runtime.context
    searches = state.get("searches", 0)
    seen = {c["chunk_id"] for c in state.get("chunks", [])}
    trace: list[dict[str, Any]] = []
    found: list[dict[str, Any]] = []
    messages: list[ToolMessage] = []
    queries: list[str] = []
    for call in [c for c in state.get("pending_calls", []) if c["name"] == "search_docs"]:
        if searches >= ctx.limits.max_searches:
            reason = f"the search budget ({ctx.limits.max_searches} per turn) was reached"
            trace += [
                event("budget_stop", node="retrieve", reason=reason),
                flag("budget_reached", f"Stopped searching: {reason}."),
            ]
            break
        args = call["args"]
        query = str(args.get("query", "")).strip()
        component = state.get("component") or args.get("component") or None
        k = _clamp_k(args.get("k"), ctx.limits.search_k)
        trace.append(
            event("tool_call", tool="search_docs", args={"query": query, "component": component, "k": k})
        )
        try:
            hits = ctx.search(query, component, k)
        except SearchError as exc:
            if component and not state.get("component"):
                trace.append(event("error", node="retrieve", message=f"{exc} Searching all components."))
                hits = ctx.search(query, None, k)
            else:
                trace.append(event("error", node="retrieve", message=str(exc)))
                hits = []
        searches += 1
        queries.append(query)
        for hit in hits:
            reasons = scan_for_injection(hit["content"])
            if reasons:
                hit["suspicious"] = reasons
                hit["prompt_text"] = redact_injection(hit["content"])
                trace.append(
                    flag(
                        "injection_suspected",
                        f"{hit['source_path']} contains text addressed to an AI model ({', '.join(reasons)}); it was redacted.",
                        source_path=hit["source_path"],
                        chunk_id=hit["chunk_id"],
                    )
                )
        trace.append(
            event("tool_result", tool="search_docs", query=query, hits=[hit_summary(h) for h in hits])
        )
        messages.append(
            ToolMessage(
                format_documents(hits, max_chars=600) if hits else "No results.", tool_call_id=call["id"]
            )
        )
        found += hits
    new_ids = [h["chunk_id"] for h in found if h["chunk_id"] not in seen]
    return {
        "chunks": found,
        "new_chunk_ids": list(dict.fromkeys(new_ids)),
        "steps": messages,
        "queries": queries,
        "searches": searches,
        "pending_calls": [],
        "trace": trace,
    }


def _clamp_k(value: Any, default: int) -> int:
    try:
        return max(1, min(MAX_K, int(value)))
    except (TypeError, ValueError):
        return default
