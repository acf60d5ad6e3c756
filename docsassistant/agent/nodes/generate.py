"""Write the answer from the relevant chunks only, with citations checked in code."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import estimate_tokens, fit_chunks, trim_history
from docsassistant.agent.calls import invoke, usage
from docsassistant.agent.citations import check_citations
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import bogus_citation, event, flag
from docsassistant.agent.llm import NUM_PREDICT
from docsassistant.agent.nodes.common import chunks_by_ids, source_record, traced
from docsassistant.agent.prompts import GENERATE_SYSTEM, format_documents, generate_system, with_evidence
from docsassistant.agent.state import AgentState
from docsassistant.agent.text_tool_calls import is_bare_tool_call, without_tool_calls
from docsassistant.agent.tools import TOOLS_BY_NAME

CUT_SHORT = f"The answer was cut off at the model's output limit ({NUM_PREDICT} tokens): its end is missing."
BROKEN_OFF = "The model's reply ended without Ollama's closing line: its end may be missing."
PARTIAL_CAVEAT = (
    "The evidence may answer only part of the question. Answer that part and say plainly "
    "which part the documentation does not cover."
)


def working_question(state: AgentState) -> str:
    """The standalone question of a follow-up (set by decide), else the question itself."""
    return state.get("standalone_question") or state["question"]


@traced("generate")
def generate(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Answer from the numbered relevant chunks (no tools bound: a chunk cannot trigger
    a tool call). Citation styles are normalised and markers pointing to no source
    removed; an answer with no valid citation is asked for once more, with citations."""
    ctx = runtime.context
    question = working_question(state)
    history = trim_history(state.get("messages", [])[:-1], 1000)
    budget = ctx.limits.prompt_budget - estimate_tokens(GENERATE_SYSTEM + question) - 1200
    evidence = fit_chunks(chunks_by_ids(state, state.get("relevant_ids", [])), budget)
    caveat = "" if state.get("sufficient") else PARTIAL_CAVEAT
    drop = state.get("unsupported") if state.get("regenerate") else None
    request = HumanMessage(with_evidence(format_documents(evidence), question))
    reply = invoke(ctx.llm, [SystemMessage(generate_system(caveat, drop)), *history, request])
    costs = [usage(reply)]
    trace: list[dict[str, Any]] = []
    paths = [c.get("source_path") or "" for c in evidence]
    answer, used, bogus, wrote_call = _read_reply(reply, paths, trace)
    # One regeneration per turn: a retry for citations only on the turn's first answer
    # (also when that answer was a tool call written as text: there was nothing to cite).
    has_text = bool(answer.strip()) or wrote_call
    cite_retry = has_text and not used and not drop and not state.get("regenerated")
    if cite_retry:
        # One more call, told to cite (issue: answers with no [n] were shown as grounded).
        system = SystemMessage(generate_system(caveat, drop, cite=True))
        reply = invoke(ctx.llm, [system, *history, request])
        costs.append(usage(reply))
        answer, used, more_bogus, _ = _read_reply(reply, paths, trace)
        bogus += [n for n in more_bogus if n not in bogus]
    if bogus:
        trace.append(bogus_citation(bogus))
    cut = _cut_short(reply)
    if answer.strip() and cut:
        trace.append(flag("answer_truncated", cut, limit=NUM_PREDICT))
    if not answer.strip():
        trace.append(flag("empty_answer", "The model returned an empty answer."))
    elif not used:
        trace.append(flag("uncited", "The answer cites none of the sources, even when asked again."))
    if caveat:
        trace.append(flag("partial_evidence", "The evidence found may cover only part of the question."))
    sources = [source_record(n, c) for n, c in enumerate(evidence, 1)]
    citations = [s for s in sources if s["n"] in used]
    trace.append(
        event("answer", chars=len(answer), citations=used, regenerated=bool(drop), cite_retry=cite_retry)
    )
    return {
        "answer": answer,
        "citations": citations,
        "sources": sources,
        "regenerate": False,
        # One regeneration per turn, whatever asked for it.
        "regenerated": state.get("regenerated", False) or bool(drop) or cite_retry,
        "truncated": bool(answer.strip() and cut),
        "trace": trace,
        "model_calls": sum(c["model_calls"] for c in costs),
        "prompt_tokens": sum(c["prompt_tokens"] for c in costs),
    }


def _cut_short(reply: AIMessage) -> str | None:
    """Why the answer's end is missing, if it is: Ollama stopped at `num_predict`
    (ollama#4230), or the stream closed without a final line saying it is done (ollama#10015,
    #17118; QA round 12 m29: "… only by Acme Proxy, not by Acme Gateway" cut to "… only by
    Acme Proxy, not"). Some backends send a `done_reason` without `done`: that ends it too."""
    metadata = reply.response_metadata or {}
    if metadata.get("done_reason") == "length":
        return CUT_SHORT
    return None if metadata.get("done") or metadata.get("done_reason") else BROKEN_OFF


def _read_reply(
    reply: AIMessage, paths: list[str], trace: list[dict[str, Any]]
) -> tuple[str, list[int], list[int], bool]:
    """(answer, cited numbers, removed bogus numbers, whether the reply was a tool call);
    `paths`: the numbered evidence's source paths."""
    content = str(reply.content or "")
    as_text = is_bare_tool_call(content, set(TOOLS_BY_NAME))
    if reply.tool_calls or as_text:
        message = "The model wrote a tool call instead of an answer; ignored."
        trace.append(event("error", node="generate", message=message))
    if as_text:  # call-shaped text is never shown as an answer (ollama #6127, #13519)
        return "", [], [], True
    answer = without_tool_calls(content, set(TOOLS_BY_NAME))  # a call written into the prose
    if answer != content:
        trace.append(
            event("error", node="generate", message="A tool call written into the answer was removed.")
        )
    return (*check_citations(answer, len(paths), paths), bool(reply.tool_calls))
