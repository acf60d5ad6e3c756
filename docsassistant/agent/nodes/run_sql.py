"""`count_chunks` calls, run through the read-only role (called by the tool executor).

A count is a fact from the database, not a passage to grade: it becomes one evidence
item ("index statistics") that an answer can cite, also beside search results.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from langchain_core.messages import ToolMessage

from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
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
            refusal.trace = trace + refusal.trace
            return refusal
    trace.append(event("tool_result", tool="count_chunks", result=result))
    scope = f"The {component} component" if component else "The whole index"
    fact = {
        "chunk_id": fact_id(component),
        "source_path": FACT_SOURCE,
        "title": "Index statistics",
        "section": component or "all components",
        "component": component or "",
        "content": f"{scope} has {result['chunks']} chunks in {result['documents']} documents.",
        "score": 1.0,
        "similarity": None,
    }
    message = ToolMessage(json.dumps(result), tool_call_id=call_id, name="count_chunks")
    return CallResult(message=message, trace=trace, chunks=[fact], ran=True, fact=True)
