"""When the search loop must stop: the per-turn caps and the turn's clock.

Shared by the routing functions (graph.py) and the nodes that flag the stop, so the flag
and the route can never disagree.
"""

from __future__ import annotations

from docsassistant.agent.configuration import AgentLimits
from docsassistant.agent.context import AgentContext
from docsassistant.agent.state import AgentState


def loop_cap(state: AgentState, limits: AgentLimits) -> str | None:
    """Why a cap ends the loop now although the evidence is incomplete, else None."""
    if state.get("relevant_ids") and state.get("sufficient"):
        return None
    if state.get("direct_reply") and not state.get("relevant_ids"):
        return None  # a reply checked against one search: not a loop
    searches_left = state.get("searches", 0) < limits.max_searches
    if not searches_left:
        return f"the search budget ({limits.max_searches} per turn) was used"
    if state.get("relevant_ids") or state.get("rewrites", 0) < limits.max_rewrites:
        return None
    return f"the rewrite budget ({limits.max_rewrites} per turn) was used"


def time_short(ctx: AgentContext) -> bool:
    """Too little time is left for another model call (the slowest step of a turn)."""
    return ctx.time_left() < ctx.limits.reserve_s
