"""Rewrite the search query when nothing relevant was found; stop when it stops changing."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.nodes.common import queued_search, traced
from docsassistant.agent.prompts import REWRITE_SYSTEM, rewrite_request
from docsassistant.agent.schemas import RewrittenQuery
from docsassistant.agent.state import AgentState


def query_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two queries' word sets (case-insensitive)."""
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    if not wa or not wb:
        return 1.0 if wa == wb else 0.0
    return len(wa & wb) / len(wa | wb)


@traced("rewrite")
def rewrite(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Ask for a new query; queue it as a search, or mark the loop as making no progress."""
    ctx = runtime.context
    earlier = state.get("queries", []) or [state["question"]]
    parsed, raw = invoke_structured(
        ctx.llm,
        RewrittenQuery,
        [SystemMessage(REWRITE_SYSTEM), HumanMessage(rewrite_request(state["question"], earlier))],
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
