"""Write the answer from the relevant chunks only, with citations checked in code."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import estimate_tokens, fit_chunks, trim_history
from docsassistant.agent.calls import invoke, usage
from docsassistant.agent.citations import check_citations
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.nodes.common import chunks_by_ids, traced
from docsassistant.agent.prompts import GENERATE_SYSTEM, format_documents, generate_request
from docsassistant.agent.state import AgentState

PARTIAL_CAVEAT = (
    "The documents may answer only part of the question. Answer that part and say plainly "
    "which part the documentation does not cover."
)


def source_record(n: int, chunk: dict[str, Any]) -> dict[str, Any]:
    """A numbered source as stored with the turn (enough to render it later)."""
    keys = ("chunk_id", "source_path", "title", "section", "component", "score", "content", "suspicious")
    return {"n": n, **{k: chunk.get(k) for k in keys}}


@traced("generate")
def generate(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Answer from the numbered relevant chunks (no tools bound: a chunk cannot trigger
    a tool call). Markers pointing to no source are removed and flagged."""
    ctx = runtime.context
    history = trim_history(state.get("messages", [])[:-1], 1000)
    budget = ctx.limits.prompt_budget - estimate_tokens(GENERATE_SYSTEM + state["question"]) - 1200
    evidence = fit_chunks(chunks_by_ids(state, state.get("relevant_ids", [])), budget)
    caveat = "" if state.get("sufficient") else PARTIAL_CAVEAT
    drop = state.get("unsupported") if state.get("regenerate") else None
    request = generate_request(state["question"], format_documents(evidence), caveat, drop)
    reply = invoke(ctx.llm, [SystemMessage(GENERATE_SYSTEM), *history, HumanMessage(request)])
    trace: list[dict[str, Any]] = []
    if reply.tool_calls:
        trace.append(
            event(
                "error", node="generate", message="The model tried to call a tool while answering; ignored."
            )
        )
    answer, used, bogus = check_citations(str(reply.content), len(evidence))
    if bogus:
        listed = ", ".join(f"[{n}]" for n in bogus)
        trace.append(flag("bogus_citation", f"Removed citation(s) {listed}: no such source.", removed=bogus))
    if caveat:
        trace.append(flag("partial_evidence", "The evidence found may cover only part of the question."))
    sources = [source_record(n, c) for n, c in enumerate(evidence, 1)]
    citations = [s for s in sources if s["n"] in used]
    trace.append(event("answer", chars=len(answer), citations=used, regenerated=bool(drop)))
    return {
        "answer": answer,
        "citations": citations,
        "sources": sources,
        "regenerate": False,
        "regenerated": state.get("regenerated", False) or bool(drop),
        "trace": trace,
        **usage(reply),
    }
