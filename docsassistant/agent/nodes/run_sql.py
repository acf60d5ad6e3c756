"""Run the queued `count_chunks` calls through the read-only role."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.state import AgentState


@traced("run_sql")
def run_sql(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Execute count calls; their results go back to the model as tool messages."""
    ctx = runtime.context
    trace: list[dict[str, Any]] = []
    messages: list[ToolMessage] = []
    for call in [c for c in state.get("pending_calls", []) if c["name"] == "count_chunks"]:
        component = call["args"].get("component") or state.get("component") or None
        trace.append(event("tool_call", tool="count_chunks", args={"component": component}))
        result = ctx.count(component)
        trace.append(event("tool_result", tool="count_chunks", result=result))
        messages.append(ToolMessage(json.dumps(result), tool_call_id=call["id"]))
    return {"steps": messages, "pending_calls": [], "counted": True, "trace": trace}
