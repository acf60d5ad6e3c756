"""Rewrite the search query when nothing relevant was found; stop when it stops changing."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.nodes.common import query_similarity, queued_search, traced
from docsassistant.agent.prompts import rewrite_system
from docsassistant.agent.schemas import RewrittenQuery
from docsassistant.agent.state import AgentState


@traced("rewrite")
def rewrite(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Ask for a new query; queue it as a search, or mark the loop as making no progress."""
    ctx = runtime.context
    question = state.get("standalone_question") or state["question"]
    earlier = state.get("queries", []) or [question]
    parsed, raw = invoke_structured(
        ctx.llm, RewrittenQuery, [SystemMessage(rewrite_system(earlier)), HumanMessage(question)]
    )
    new_query = parsed.query.strip() if isinstance(parsed, RewrittenQuery) else ""
    closest = max((query_similarity(new_query, q) for q in earlier), default=0.0)
    update: dict[str, Any] = {"rewrites": state.get("rewrites", 0) + 1, **usage(raw)}
    if not new_query or closest >= ctx.limits.novelty_threshold:
        update["no_progress"] = True
        update["trace"] = [
            event(
                "rewrite",
                old=earlier[-1],
                new=new_query,
                accepted=False,
                reason=f"too similar to an earlier query (similarity {closest:.2f})"
                if new_query
                else "no query returned",
            )
        ]
        return update
    update.update(queued_search(f"rewrite-{update['rewrites']}", new_query))
    update["trace"] = [event("rewrite", old=earlier[-1], new=new_query, accepted=True)]
    return update
