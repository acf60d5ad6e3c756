"""Trace events: what a turn did, as it happens.

Each event is a JSON-ready dict with a `type`. Nodes both stream them (LangGraph's
`custom` stream mode, for the live UI) and keep them in the turn's state, so a later
process can render the whole trace from the checkpoint.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from langgraph.config import get_stream_writer

EVENT_TYPES = (
    "node_start",
    "node_end",
    "tool_call",
    "tool_result",
    "graph_hop",
    "grade",
    "rewrite",
    "answer",
    "verification",
    "flag",
    "budget_stop",
    "error",
    "decision",  # agent-tools: standalone question, text tool call, search before answering
)


def event(type_: str, **data: Any) -> dict[str, Any]:
    """Build an event and stream it to whoever is listening (no-op outside a graph run)."""
    assert type_ in EVENT_TYPES, type_
    evt = {"type": type_, "at": round(time.time(), 3), **data}
    with contextlib.suppress(RuntimeError):  # outside a graph run (unit tests)
        get_stream_writer()(evt)
    return evt


def flag(kind: str, message: str, **data: Any) -> dict[str, Any]:
    """A flag shown beside the answer (also a trace event)."""
    return event("flag", kind=kind, message=message, **data)


# Flag kinds the UI knows how to show.
FLAG_KINDS = {
    "grounded": "Every claim is supported by the cited sources",
    "unsupported_claims": "Some claims are not supported by the sources",
    "suspected_injection": "A source contains instructions aimed at the model",
    "budget_reached": "A search, rewrite or time budget was reached",
    "no_relevant_docs": "The documentation does not seem to cover this",
    "bogus_citation": "A citation pointed to no retrieved source and was removed",
    "unverified": "The answer could not be verified",
    "partial_evidence": "Answered from partial evidence",
}
