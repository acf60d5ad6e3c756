"""What every node shares: timing and trace events, the time budget, error capture."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, ConfigDict

from docsassistant.agent.calls import TIME_UP_HINT, ModelCallFailed, TurnTimeUp, call_flags, turn_deadline
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.llm import ModelUnavailable
from docsassistant.agent.state import AgentState
from docsassistant.inputs import clip_query

Node = Callable[[AgentState, Runtime[AgentContext]], dict[str, Any]]


def traced(name: str) -> Callable[[Node], Node]:
    """Wrap a node: node_start/node_end events with timing, the wall-clock budget (also
    handed to each model call), flags raised by model calls, and model failures turned
    into a `stop_reason` instead of a crashed turn."""

    def wrap(fn: Node) -> Node:
        @functools.wraps(fn)
        def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
            ctx = runtime.context
            start = time.perf_counter()
            trace = [event("node_start", node=name)]
            if name != "finalize" and ctx.time_left() <= 0:
                reason = f"the turn's time budget ({ctx.limits.turn_timeout_s:g} s) ran out. {TIME_UP_HINT}"
                trace.append(event("budget_stop", node=name, reason=reason))
                trace.append(flag("budget_reached", f"Stopped: {reason}."))
                update: dict[str, Any] = {"stop_reason": reason}
            else:
                flags: list[dict[str, Any]] = []
                deadline_token, flags_token = turn_deadline.set(ctx.deadline), call_flags.set(flags)
                try:
                    update = fn(state, runtime)
                except TurnTimeUp as exc:  # the time budget ran out during a model call
                    trace.append(event("budget_stop", node=name, reason=str(exc)))
                    trace.append(flag("budget_reached", f"Stopped: {exc}."))
                    update = {"stop_reason": str(exc)}
                except (ModelCallFailed, ModelUnavailable) as exc:
                    trace.append(event("error", node=name, message=str(exc)))
                    update = {"stop_reason": str(exc)}
                finally:
                    turn_deadline.reset(deadline_token)
                    call_flags.reset(flags_token)
                trace += flags  # e.g. prompt_truncated, noticed while calling the model
            trace += update.pop("trace", [])
            ms = round((time.perf_counter() - start) * 1000, 1)
            trace.append(event("node_end", node=name, ms=ms))
            return {**update, "trace": trace}

        return node

    return wrap


def source_record(n: int, chunk: dict[str, Any]) -> dict[str, Any]:
    """A numbered source as stored with the turn (enough to render it later)."""
    keys = ("chunk_id", "source_path", "title", "section", "component", "score", "content", "suspicious")
    return {"n": n, **{k: chunk.get(k) for k in keys}}


def chunks_by_ids(state: AgentState, ids: list[int]) -> list[dict[str, Any]]:
    """The state's chunks with these ids, in retrieval order."""
    wanted = set(ids)
    return [c for c in state.get("chunks", []) if c["chunk_id"] in wanted]


def queued_search(call_id: str, query: str) -> dict[str, Any]:
    """A search the graph queues itself (fallback or rewrite), with the AI message that
    keeps the model's view of the conversation consistent. The query is the question
    (or a rewrite of it), clipped to the search's query limit."""
    call = {"id": call_id, "name": "search_docs", "args": {"query": clip_query(query)}}
    message = AIMessage("", tool_calls=[{**call, "type": "tool_call"}])
    return {"pending_calls": [call], "steps": [message]}


RANKED_LISTS = ("dense", "bm25", "ident", "graph")


def hit_summary(chunk: dict[str, Any]) -> dict[str, Any]:
    """What a trace shows of one hit."""
    return {
        "chunk_id": chunk["chunk_id"],
        "source_path": chunk["source_path"],
        "section": chunk.get("section", ""),
        "score": round(float(chunk.get("score", 0.0)), 4),
        # Where the fused score comes from: a hit last in every list scores 0 and is still a hit.
        "ranks": {name: chunk[f"{name}_rank"] for name in RANKED_LISTS if chunk.get(f"{name}_rank")},
    }


def query_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two queries' word sets (case-insensitive)."""
    wa, wb = set(re.findall(r"\w+", a.lower())), set(re.findall(r"\w+", b.lower()))
    if not wa or not wb:
        return 1.0 if wa == wb else 0.0
    return len(wa & wb) / len(wa | wb)


class CallResult(BaseModel):
    """The outcome of one tool call: the message the model reads, and what the graph keeps."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    message: ToolMessage
    trace: list[dict[str, Any]] = []
    chunks: list[dict[str, Any]] = []  # search hits, or one count fact
    query: str | None = None
    search_key: tuple[str, str] | None = None  # (component, query) of a search that ran
    ran: bool = False  # the tool ran and returned a usable result
    fact: bool = False  # `chunks` holds a fact from the database (no grading needed)

    @classmethod
    def error(cls, call: dict[str, Any], text: str) -> CallResult:
        """A call that was not run; the model reads why."""
        message = ToolMessage(f"Error: {text}", tool_call_id=call["id"], name=call["name"], status="error")
        trace = [event("error", node="retrieve", message=f"{call['name']} call not run: {text}")]
        return cls(message=message, trace=trace)
