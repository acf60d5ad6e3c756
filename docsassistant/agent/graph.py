"""The agent graph. Nodes live in `nodes/`; routing is here; the graph is assembled at
the bottom.

    decide ─┬─ tool calls ─→ retrieve ─┬─ searched → grade ─┬─ enough ──────────→ generate ─┬→ verify ─┬→ finalize
            │  (the executor: every    └─ counts, errors    ├─ partial, budget → decide      │          └→ generate (once)
            │   call of the reply)        only → decide     ├─ nothing, budget → rewrite → retrieve
            │                                               ├─ nothing, memory reply / decline → unchecked_answer
            │                                               └─ capped ─────────→ generate (caveat) / no_answer
            ├─ small talk, a short decline ────────────────────────────────────→ finalize
            └─ done, evidence in hand ──────────────────────→ generate      time short → skip_verification → finalize
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from docsassistant.agent.context import AgentContext
from docsassistant.agent.loop import loop_cap, time_short
from docsassistant.agent.nodes.decide import decide
from docsassistant.agent.nodes.finalize import finalize, no_answer
from docsassistant.agent.nodes.generate import generate
from docsassistant.agent.nodes.grade import grade
from docsassistant.agent.nodes.retrieve import MAX_IDLE_ROUNDS, retrieve
from docsassistant.agent.nodes.rewrite import rewrite
from docsassistant.agent.nodes.unchecked import skip_verification, unchecked_answer
from docsassistant.agent.nodes.verify import verify
from docsassistant.agent.state import AgentState


def after_decide(state: AgentState) -> str:
    if state.get("stop_reason"):
        return "finalize"
    if state.get("pending_calls"):
        return "retrieve"
    if state.get("answer"):
        return "finalize"  # small talk, a short decline, or a count answered from its result
    # No more tool calls wanted: answer from the evidence gathered, if any.
    return "generate" if state.get("relevant_ids") else "finalize"


def after_retrieve(state: AgentState) -> str:
    if state.get("stop_reason"):
        return "finalize"
    if state.get("idle_rounds", 0) >= MAX_IDLE_ROUNDS:
        return "generate" if state.get("relevant_ids") else "no_answer"
    # Search results are graded first; counts and errors go back to the model.
    return "grade" if state.get("round_searched") else "decide"


def after_grade(state: AgentState, runtime: Runtime[AgentContext]) -> str:
    if state.get("stop_reason"):
        return "finalize"
    relevant = bool(state.get("relevant_ids"))
    if relevant and (state.get("sufficient") or time_short(runtime.context)):
        return "generate"
    if not relevant and state.get("direct_reply"):
        return "unchecked_answer"
    if loop_cap(state, runtime.context.limits) or time_short(runtime.context):
        return "generate" if relevant else "no_answer"
    return "decide" if relevant else "rewrite"  # partial evidence: the model phrases the next hop


def after_rewrite(state: AgentState) -> str:
    if state.get("stop_reason"):
        return "finalize"
    if state.get("no_progress"):
        return "generate" if state.get("relevant_ids") else "no_answer"
    return "retrieve"


def after_generate(state: AgentState, runtime: Runtime[AgentContext]) -> str:
    if state.get("stop_reason") or not state.get("sources"):
        return "finalize"
    return "skip_verification" if time_short(runtime.context) else "verify"


def after_verify(state: AgentState) -> str:
    return "generate" if state.get("regenerate") and not state.get("stop_reason") else "finalize"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    builder = StateGraph(AgentState, context_schema=AgentContext)
    for name, node in (
        ("decide", decide),
        ("retrieve", retrieve),
        ("grade", grade),
        ("rewrite", rewrite),
        ("generate", generate),
        ("verify", verify),
        ("unchecked_answer", unchecked_answer),
        ("skip_verification", skip_verification),
        ("no_answer", no_answer),
        ("finalize", finalize),
    ):
        builder.add_node(name, node)
    builder.add_edge(START, "decide")
    builder.add_conditional_edges("decide", after_decide, ["retrieve", "generate", "finalize"])
    builder.add_conditional_edges(
        "retrieve", after_retrieve, ["grade", "decide", "generate", "no_answer", "finalize"]
    )
    builder.add_conditional_edges(
        "grade", after_grade, ["generate", "decide", "rewrite", "unchecked_answer", "no_answer", "finalize"]
    )
    builder.add_conditional_edges("rewrite", after_rewrite, ["retrieve", "generate", "no_answer", "finalize"])
    builder.add_conditional_edges("generate", after_generate, ["verify", "skip_verification", "finalize"])
    builder.add_conditional_edges("verify", after_verify, ["generate", "finalize"])
    builder.add_edge("unchecked_answer", "finalize")
    builder.add_edge("skip_verification", "finalize")
    builder.add_edge("no_answer", "finalize")
    # The runner stores the turn's record (`turn_records`) once the graph has ended.
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer)
