"""A small picture of a turn's graph hops: seed entities and the passages they lead to."""

from __future__ import annotations

from typing import Any

import streamlit as st

MAX_PASSAGES = 8


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"')[:60] + '"'


def hops_dot(trace: list[dict[str, Any]]) -> str | None:
    """Graphviz DOT for the `graph_hop` events of a trace (None when there were none)."""
    hops = [e for e in trace if e.get("type") == "graph_hop"]
    if not hops:
        return None
    lines = ["graph hops {", "  rankdir=LR; node [fontsize=10];"]
    seen: set[str] = set()

    def entity_node(entity: str) -> str:
        node = _quote("e:" + entity)
        if node not in seen:
            seen.add(node)
            lines.append(
                f"  {node} [label={_quote(entity)}, shape=ellipse, style=filled, fillcolor=lightyellow];"
            )
        return node

    for hop in hops:
        for entity in hop.get("entities") or []:
            entity_node(entity)
        for passage in (hop.get("passages") or [])[:MAX_PASSAGES]:
            node = _quote(f"c:{passage['chunk_id']}")
            if node not in seen:
                seen.add(node)
                lines.append(f"  {node} [label={_quote(passage['source_path'])}, shape=box];")
            for entity in passage.get("via") or []:
                lines.append(f"  {entity_node(entity)} -- {node};")
    lines.append("}")
    return "\n".join(lines)


def render_graph_hops(record: dict[str, Any]) -> None:
    """Draw the hops in a collapsed expander, if the turn walked the graph."""
    dot = hops_dot(record.get("trace") or [])
    if dot:
        with st.expander("Graph hops: entities and the passages they connect", icon=":material/hub:"):
            st.graphviz_chart(dot)
