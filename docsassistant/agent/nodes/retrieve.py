"""The tool executor: run every pending tool call of a reply, each answered by its own
ToolMessage. Searches accumulate chunks for grading; counts become citable facts."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import Future
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables.config import ContextThreadPoolExecutor
from langgraph.runtime import Runtime
from sqlalchemy.exc import DBAPIError

from docsassistant.agent.configuration import AgentLimits
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.injection.detector import redact_injection, scan_for_injection
from docsassistant.agent.nodes.common import CallResult, hit_summary, query_similarity, traced
from docsassistant.agent.nodes.run_sql import run_count
from docsassistant.agent.prompts import format_documents
from docsassistant.agent.state import AgentState
from docsassistant.agent.tool_args import ToolArgsError, validated_args
from docsassistant.agent.tools import TOOLS_BY_NAME
from docsassistant.knowledge_graph.hops import hop_entities, hop_event_data
from docsassistant.search import SearchError

MAX_K = 10  # per search: more would not fit the grading prompt
MAX_IDLE_ROUNDS = 2  # tool rounds in a row where nothing could run end the loop


@traced("retrieve")
def retrieve(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Execute the queued calls: unusable ones are answered with a readable error at once,
    the rest run in parallel (searches and counts are independent).

    The user's component filter wins over one the model picked. A search too similar to an
    earlier one this turn, or beyond the search budget, is refused with a message saying so.
    """
    ctx = runtime.context
    seen = {c["chunk_id"] for c in state.get("chunks", [])}
    earlier = [tuple(pair) for pair in state.get("search_log", [])]
    searches = state.get("searches", 0)
    results: list[CallResult | None] = []
    jobs: list[tuple[int, Any]] = []
    for call in state.get("pending_calls", []):
        refusal, args = _check(call, state, ctx.limits, earlier, searches)
        if refusal is not None:
            results.append(refusal)
            continue
        if call["name"] == "search_docs":
            searches += 1
            earlier.append(_search_key(args, state))
            jobs.append((len(results), lambda c=call, a=args: run_search(c["id"], a, state, ctx)))
        else:
            jobs.append((len(results), lambda c=call, a=args: run_count(c["id"], a, state, ctx, seen)))
        results.append(None)
    if jobs:
        with ContextThreadPoolExecutor(max_workers=min(4, len(jobs))) as pool:
            futures = [(i, pool.submit(job)) for i, job in jobs]
            for i, future in futures:
                results[i] = _result_or_error(state["pending_calls"][i], future)
    done = [r for r in results if r is not None]
    trace = [e for r in done for e in r.trace]
    found = [c for r in done for c in r.chunks]
    facts = [c["chunk_id"] for r in done for c in r.chunks if r.fact]
    new_ids = list(
        dict.fromkeys([c["chunk_id"] for c in found if c["chunk_id"] not in seen] + _again(done, state))
    )
    progressed = any(r.ran for r in done)
    idle = 0 if progressed else state.get("idle_rounds", 0) + 1
    if idle >= MAX_IDLE_ROUNDS:
        reason = f"{idle} tool rounds in a row could not run"
        trace += [
            event("budget_stop", node="retrieve", reason=reason),
            flag("budget_reached", f"Stopped: {reason}."),
        ]
    return {
        "chunks": found,
        "new_chunk_ids": [i for i in new_ids if i not in facts],
        "relevant_ids": [i for i in facts if i not in seen],
        "steps": [r.message for r in done],
        "queries": [r.query for r in done if r.query and r.ran],
        "search_log": [r.search_key for r in done if r.search_key and r.ran],
        "searches": searches,
        "counted": state.get("counted", False) or bool(facts),
        "idle_rounds": idle,
        "round_searched": any(r.search_key for r in done),
        "pending_calls": [],
        "trace": trace,
    }


def _again(done: list[CallResult], state: AgentState) -> list[int]:
    """Chunks set aside by one grading that a later, different search finds again: graded
    once more. A multi-hop question's second hop is often a page the first grading judged
    off-topic (the team's city, asked via its service); it was never offered again (QA
    round 9, s15). Only once: a chunk set aside twice stays aside."""
    graded = Counter(
        i for e in state.get("trace", []) if e.get("type") == "grade" for i in e.get("graded") or []
    )
    relevant = set(state.get("relevant_ids", []))
    return [
        c["chunk_id"]
        for r in done
        if r.ran and r.search_key and not r.fact
        for c in r.chunks
        if graded[c["chunk_id"]] == 1 and c["chunk_id"] not in relevant
    ]


def _result_or_error(call: dict[str, Any], future: Future[CallResult]) -> CallResult:
    """The call's result; a failing tool becomes a readable error for the model. A database
    failure is not the model's to fix: it ends the turn (the runner records why)."""
    try:
        return future.result()
    except DBAPIError:
        raise
    except Exception as exc:
        first_line = (str(exc).splitlines() or [""])[0]
        return CallResult.error(call, f"{call['name']} failed ({type(exc).__name__}: {first_line}).")


def _search_key(args: dict[str, Any], state: AgentState) -> tuple[str, str]:
    """(component searched, query): the same words in another component are a new search."""
    component = state.get("component") or args.get("component") or ""
    return (component.strip().lower(), args["query"])


def _check(
    call: dict[str, Any],
    state: AgentState,
    limits: AgentLimits,
    earlier: list[tuple[str, str]],
    searches: int,
) -> tuple[CallResult | None, dict[str, Any]]:
    """(a refusal to send back, None) or (None, the validated arguments)."""
    name = call["name"]
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        known = ", ".join(TOOLS_BY_NAME)
        return CallResult.error(call, f"There is no tool {name!r}. The tools are: {known}."), {}
    try:
        args = validated_args(tool, call.get("args"))
    except ToolArgsError as exc:
        return CallResult.error(call, str(exc)), {}
    if name != "search_docs":
        return None, args
    args["query"] = args["query"].strip()
    if not args["query"]:
        return CallResult.error(call, "search_docs needs a non-empty `query`."), {}
    if searches >= limits.max_searches:
        reason = f"the search budget ({limits.max_searches} per turn) was reached"
        refusal = CallResult.error(call, f"Not searched: {reason}. Answer from the results you have.")
        refusal.trace += [
            event("budget_stop", node="retrieve", reason=reason),
            flag("budget_reached", f"Stopped searching: {reason}."),
        ]
        return refusal, {}
    component, query = _search_key(args, state)
    for where, before in earlier:
        if where == component and query_similarity(query, before) >= limits.novelty_threshold:
            message = (
                f"Not searched: too similar to the earlier query “{before}”, whose results you have. "
                "Search with different keywords, or answer from those results."
            )
            return CallResult.error(call, message), {}
    return None, args


def run_search(call_id: str, args: dict[str, Any], state: AgentState, ctx: AgentContext) -> CallResult:
    """One search; hits are scanned for text aimed at the model and redacted for prompts."""
    query = args["query"]
    component = state.get("component") or args.get("component") or None
    k = max(1, min(MAX_K, args.get("k") or ctx.limits.search_k))
    trace = [event("tool_call", tool="search_docs", args={"query": query, "component": component, "k": k})]
    # A later hop walks the knowledge graph from the entities the earlier hits name.
    hop = hop_entities(state["chunks"]) if state.get("chunks") else []
    graph = {"mode": "graph", "entities": hop} if hop else {}
    try:
        hits = ctx.search(query, component, k, **graph)
    except SearchError as exc:
        trace.append(event("error", node="retrieve", message=str(exc)))
        message = ToolMessage(f"Error: {exc}", tool_call_id=call_id, name="search_docs", status="error")
        return CallResult(message=message, trace=trace)
    for hit in hits:
        reasons = scan_for_injection(hit["content"])
        if reasons:
            hit["suspicious"] = reasons
            hit["prompt_text"] = redact_injection(hit["content"])
            trace.append(
                flag(
                    "injection_suspected",
                    f"{hit['source_path']} contains text addressed to an AI model ({', '.join(reasons)}); it was redacted.",
                    source_path=hit["source_path"],
                    chunk_id=hit["chunk_id"],
                )
            )
    if hop:
        trace.append(event("graph_hop", hop=state.get("searches", 0) + 1, **hop_event_data(hits, hop)))
    trace.append(event("tool_result", tool="search_docs", query=query, hits=[hit_summary(h) for h in hits]))
    content = format_documents(hits, max_chars=600) if hits else "No results."
    message = ToolMessage(content, tool_call_id=call_id, name="search_docs")
    key = ((component or "").strip().lower(), query)
    return CallResult(message=message, trace=trace, chunks=hits, query=query, search_key=key, ran=True)
