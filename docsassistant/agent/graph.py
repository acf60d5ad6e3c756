"""The agent graph. Nodes live in `nodes/`; routing is here; the graph is assembled at
the bottom.

    decide ─┬─ search_docs ─→ retrieve → grade ─┬─ enough ──────────→ generate → verify ─┬→ finalize
            │                                   ├─ partial, budget → decide (next hop)   └→ generate (once, without
            ├─ count_chunks → run_sql → decide  ├─ nothing, budget → rewrite → retrieve      unsupported claims)
            └─ no tool ───────────────→ finalize └─ exhausted ──────→ generate (caveat) / no_answer
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from docsassistant.agent.context import AgentContext
from docsassistant.agent.nodes.decide import decide
from docsassistant.agent.nodes.finalize import finalize, no_answer
from docsassistant.agent.nodes.generate import generate
from docsassistant.agent.nodes.grade import grade
from docsassistant.agent.nodes.retrieve import retrieve
from docsassistant.agent.nodes.rewrite import rewrite
from docsassistant.agent.nodes.run_sql import run_sql
from docsassistant.agent.nodes.verify import verify
from docsassistant.agent.state import AgentState


def after_decide(state: AgentState) -> str:
    if state.get("stop_reason"):
        return "finalize"
    names = {c["name"] for c in state.get("pending_calls", [])}
    if "search_docs" in names:
        return "retrieve"
    if "count_chunks" in names:
        return "run_sql"
    # No more searches wanted: answer from the evidence gathered, if any.
    return "generate" if state.get("relevant_ids") else "finalize"


def after_grade(state: AgentState, runtime: Runtime[AgentContext]) -> str:
    limits = runtime.context.limits
    if state.get("stop_reason"):
        return "finalize"
    relevant = bool(state.get("relevant_ids"))
    searches_left = state.get("searches", 0) < limits.max_searches
    if relevant and state.get("sufficient"):
        return "generate"
    if relevant and searches_left:
        return "decide"  # partial evidence: the model phrases the next hop from it
    if not relevant and searches_left and state.get("rewrites", 0) < limits.max_rewrites:
        return "rewrite"
    return "generate" if relevant else "no_answer"


def after_rewrite(state: AgentState) -> str:
    if state.get("stop_reason"):
        return "finalize"
    if state.get("no_progress"):
        return "generate" if state.get("relevant_ids") else "no_answer"
    return "retrieve"


def after_generate(state: AgentState) -> str:
    return "finalize" if state.get("stop_reason") or not state.get("sources") else "verify"


def after_verify(state: AgentState) -> str:
    return "generate" if state.get("regenerate") and not state.get("stop_reason") else "finalize"


def after_stop_check(state: AgentState) -> str:
    return "finalize" if state.get("stop_reason") else "next"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    builder = StateGraph(AgentState, context_schema=AgentContext)
    for name, node in (
        ("decide", decide),
        ("retrieve", retrieve),
        ("grade", grade),
        ("rewrite", rewrite),
        ("generate", generate),
        ("verify", verify),
        ("run_sql", run_sql),
        ("no_answer", no_answer),
        ("finalize", finalize),
    ):
        builder.add_node(name, node)
    builder.add_edge(START, "decide")
    builder.add_conditional_edges("decide", after_decide, ["retrieve", "run_sql", "generate", "finalize"])
    builder.add_conditional_edges("retrieve", after_stop_check, {"next": "grade", "finalize": "finalize"})
    builder.add_conditional_edges(
        "grade", after_grade, ["generate", "decide", "rewrite", "no_answer", "finalize"]
    )
    builder.add_conditional_edges("rewrite", after_rewrite, ["retrieve", "generate", "no_answer", "finalize"])
    builder.add_conditional_edges("run_sql", after_stop_check, {"next": "decide", "finalize": "finalize"})
    builder.add_conditional_edges("generate", after_generate, ["verify", "finalize"])
    builder.add_conditional_edges("verify", after_verify, ["generate", "finalize"])
    builder.add_edge("no_answer", "finalize")
    # The runner stores the turn's record (`turn_records`) once the graph has ended.
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer)
