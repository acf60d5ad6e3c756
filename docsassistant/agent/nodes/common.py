"""What every node shares: timing and trace events, the time budget, error capture."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from docsassistant.agent.calls import ModelCallFailed
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.llm import ModelUnavailable
from docsassistant.agent.state import AgentState

Node = Callable[[AgentState, Runtime[AgentContext]], dict[str, Any]]


def traced(name: str) -> Callable[[Node], Node]:
    """Wrap a node: node_start/node_end events with timing, the wall-clock budget,
    and model failures turned into a `stop_reason` instead of a crashed turn."""

    def wrap(fn: Node) -> Node:
        @functools.wraps(fn)
        def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
            ctx = runtime.context
            start = time.perf_counter()
            trace = [event("node_start", node=name)]
            if name != "finalize" and ctx.time_left() <= 0:
                reason = f"the turn's time budget ({ctx.limits.turn_timeout_s:g} s) ran out"
                trace.append(event("budget_stop", node=name, reason=reason))
                trace.append(flag("budget_reached", f"Stopped: {reason}."))
                update: dict[str, Any] = {"stop_reason": reason}
            else:
                try:
                    update = fn(state, runtime)
                except (ModelCallFailed, ModelUnavailable) as exc:
                    trace.append(event("error", node=name, message=str(exc)))
                    update = {"stop_reason": str(exc)}
            trace += update.pop("trace", [])
            ms = round((time.perf_counter() - start) * 1000, 1)
            trace.append(event("node_end", node=name, ms=ms))
            return {**update, "trace": trace}

        return node

    return wrap


def chunks_by_ids(state: AgentState, ids: list[int]) -> list[dict[str, Any]]:
    """The state's chunks with these ids, in retrieval order."""
    wanted = set(ids)
    return [c for c in state.get("chunks", []) if c["chunk_id"] in wanted]


def queued_search(call_id: str, query: str) -> dict[str, Any]:
    """A search the graph queues itself (fallback or rewrite), with the AI message that
    keeps the model's view of the conversation consistent."""
    call = {"id": call_id, "name": "search_docs", "args": {"query": query}}
    message = AIMessage("", tool_calls=[{**call, "type": "tool_call"}])
    return {"pending_calls": [call], "steps": [message]}


def hit_summary(chunk: dict[str, Any]) -> dict[str, Any]:
    """What a trace shows of one hit."""
    return {
        "chunk_id": chunk["chunk_id"],
        "source_path": chunk["source_path"],
        "section": chunk.get("section", ""),
        "score": round(float(chunk.get("score", 0.0)), 4),
    }
