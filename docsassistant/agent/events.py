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


def bogus_citation(removed: list[int], why: str = "no such source") -> dict[str, Any]:
    """The `bogus_citation` flag for markers removed from an answer."""
    listed = ", ".join(f"[{n}]" for n in removed)
    return flag("bogus_citation", f"Removed citation(s) {listed}: {why}.", removed=removed)


# Every flag a turn can carry, with its meaning (docs/flags.md is the long form, and a test
# keeps the two in step).
FLAG_KINDS = {
    "grounded": "Every claim is supported by sources the answer cites",
    "empty_answer": "The model returned an empty answer",
    "uncited": "The answer cites no source, even when asked again",
    "bogus_citation": "A citation pointed to no retrieved source and was removed",
    "verification_empty": "The verifier found no claims to check",
    "verification_unreadable": "The verifier's reply could not be read",
    "unsupported_claims": "Some claims are not supported by the sources",
    "citation_mismatch": "A claim rests on sources the answer does not cite",
    "unchecked_sentences": "Some sentences cite no source and were not verified",
    "off_question": "The answer speaks of a neighbouring term, not the one asked about",
    "injection_suspected": "A source contains text aimed at the model; it was kept out of the prompt",
    "injection_obeyed": "The answer carries out an order found in a source",
    "partial_evidence": "Answered from partial evidence",
    "no_relevant_docs": "The documentation does not seem to cover this",
    "search_failed": "No search could run, so the documentation was not consulted",
    "not_from_documentation": "Answered without evidence from the documentation",
    "not_verified": "The answer was not verified",
    "budget_reached": "A search, rewrite, step or time budget was reached",
    "prompt_truncated": "Ollama read less of the prompt than was sent",
    "answer_truncated": "The answer was cut off at the model's output limit, or its stream ended early",
}
