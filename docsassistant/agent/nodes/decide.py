"""The agent node: the model decides to search, count, answer directly or decline."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.budget import fit_tool_results, message_tokens, trim_history
from docsassistant.agent.calls import MalformedReply, invoke, usage, with_tools
from docsassistant.agent.context import AgentContext
from docsassistant.agent.direct_replies import is_decline, is_small_talk
from docsassistant.agent.events import event, flag
from docsassistant.agent.nodes.common import queued_search, source_record, traced
from docsassistant.agent.nodes.run_sql import count_answer, count_facts
from docsassistant.agent.nodes.unchecked import unsourced
from docsassistant.agent.prompts import AGENT_SYSTEM
from docsassistant.agent.standalone import standalone_question
from docsassistant.agent.state import AgentState
from docsassistant.agent.text_tool_calls import parse_text_tool_calls
from docsassistant.agent.tools import TOOLS, TOOLS_BY_NAME


@traced("decide")
def decide(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Ask the tool-bound model what to do next; queue every tool call of its reply.

    The first round of a turn also sets the standalone question (a model call only on a
    follow-up). Tool calls written as text are recognised as calls. A reply without
    evidence is shown only for small talk; otherwise, a decline too, the question is searched
    first (the reply is kept in case nothing relevant is found).
    """
    ctx = runtime.context
    first_round = not state.get("steps")
    update: dict[str, Any] = {"trace": []}
    if first_round:
        update = {"idle_rounds": 0, "direct_reply": "", "search_log": None, "trace": []}
        earlier = state.get("earlier_standalone")
        update.update(standalone_question(state.get("messages", []), state["question"], ctx, earlier))
    question = update.get("standalone_question") or state.get("standalone_question") or state["question"]
    trace: list[dict[str, Any]] = update.pop("trace")
    calls_so_far = update.pop("model_calls", 0)
    tokens_so_far = update.pop("prompt_tokens", 0)
    try:
        reply = invoke(with_tools(ctx.llm, TOOLS), decide_prompt(state, question, ctx))
    except MalformedReply as exc:
        accounting = {"model_calls": calls_so_far + 1, "prompt_tokens": tokens_so_far}
        if not first_round:  # mid-turn: answer from the evidence so far (see after_decide)
            trace.append(
                event("error", node="decide", message=f"{exc} Answering from what was found so far.")
            )
            done = {"pending_calls": [], "trace": trace, **accounting}
            counted = " ".join(f["content"] for f in count_facts(state))  # never an invented number
            return done if _has_documents(state) else {**done, "answer": counted}
        trace.append(event("error", node="decide", message=f"{exc} Searching the question itself instead."))
        return {**update, **queued_search("fallback-0", question), "trace": trace, **accounting}
    spent = usage(reply)
    update["model_calls"] = calls_so_far + spent["model_calls"]
    update["prompt_tokens"] = tokens_so_far + spent["prompt_tokens"]
    pending = _pending_calls(reply)
    content = str(reply.content or "").strip()
    if not pending and content:
        text_calls = parse_text_tool_calls(content, set(TOOLS_BY_NAME))
        if text_calls.calls:
            round_no = len(state.get("steps", []))
            pending = [{**c, "id": f"{c['id']}-{round_no}"} for c in text_calls.calls]
            trace.append(event("decision", kind="text_tool_call", calls=[c["name"] for c in pending]))
        elif text_calls.call_shaped:
            names = ", ".join(text_calls.unknown_names)
            message = f"The model wrote a call to unknown tool(s) {names}."
            trace.append(event("error", node="decide", message=message))
            if first_round:
                return {**update, **queued_search("fallback-0", question), "trace": trace}
            content = ""  # call-shaped text is never an answer
    if pending:
        message = AIMessage(
            "",
            tool_calls=[
                {**c, "args": c["args"] if isinstance(c["args"], dict) else {}, "type": "tool_call"}
                for c in pending
            ],
        )
        return {**update, "pending_calls": pending, "steps": [message], "trace": trace}
    if first_round and reply.invalid_tool_calls:
        trace.append(
            event("error", node="decide", message="Malformed tool call: searching the question itself.")
        )
        return {**update, **queued_search("fallback-0", question), "trace": trace}
    if _has_documents(state):
        return {**update, "pending_calls": [], "trace": trace}  # generate from the evidence
    if state.get("counted") and (facts := count_facts(state)):
        answer, checked = count_answer(content, facts, question)
        sources = [source_record(n, fact) for n, fact in enumerate(facts, 1)]
        # The counts are the answer's sources; nothing is left for a verifier to judge.
        done = {"pending_calls": [], "answer": answer, "sources": sources, "citations": sources}
        return {**update, **done, "trace": trace + checked}
    unsearched = not (state.get("search_log") or _asked_to_count(state))  # first round, or calls that failed
    # Silence is no answer to a documentation question either (QA round 8a scenario 08: a
    # refused call, then an empty reply, ended as empty_answer): it is searched too.
    silent = not content and not (unsearched and _searchable(state))
    # A decline is shown as it is only once a search has run, or for a message not worth
    # searching: llama3.1 also declines documentation questions ("Sorry, I can only help
    # with the documentation", QA round 10 s28), which a search then answers.
    decline = is_decline(content)
    if silent or is_small_talk(state["question"]) or (decline and not (unsearched and _searchable(state))):
        return {**update, "pending_calls": [], "answer": content, "trace": trace}
    if unsearched:
        reason = "decline" if decline else "answer without evidence" if content else "empty reply"
        trace.append(event("decision", kind="search_before_answering", reason=reason))
        check = queued_search(f"check-{len(state.get('steps', []))}", question)
        return {**update, **check, "direct_reply": content, "trace": trace}
    trace.append(flag("not_from_documentation", "The model answered without documentation evidence."))
    answer, flags = unsourced(content)
    return {**update, "pending_calls": [], "answer": answer, "trace": trace + flags}


def decide_prompt(state: AgentState, question: str, ctx: AgentContext) -> list[BaseMessage]:
    """System prompt, recent history, the (standalone) question and this turn's tool
    rounds, within the prompt budget: tool results first, history gets what is left."""
    system = SystemMessage(AGENT_SYSTEM)
    asked = HumanMessage(question)
    fixed = message_tokens([system, asked])
    budget = ctx.limits.prompt_budget - fixed
    steps = fit_tool_results(state.get("steps", []), max(budget * 3 // 4, budget - 2000))
    history_budget = min(budget // 2, budget - message_tokens(steps))
    earlier = state.get("messages", [])[:-1]
    history = trim_history(earlier, history_budget) if history_budget > 0 else []
    return [system, *history, asked, *steps]


def _pending_calls(reply: AIMessage) -> list[dict[str, Any]]:
    """Every call of the reply, also malformed ones (the executor answers each)."""
    calls = [
        {"id": c.get("id") or f"call-{i}", "name": c["name"], "args": c.get("args")}
        for i, c in enumerate(reply.tool_calls)
    ]
    for i, bad in enumerate(reply.invalid_tool_calls):
        if bad.get("name"):
            calls.append(
                {"id": bad.get("id") or f"invalid-{i}", "name": bad["name"], "args": bad.get("args")}
            )
    return calls


def _asked_to_count(state: AgentState) -> bool:
    """A count was asked for this turn: a reply after it (even after an error, such as an
    unknown component whose message lists the known ones) answers the count, not from memory."""
    return any(
        call["name"] == "count_chunks"
        for message in state.get("steps", [])
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    )


def _searchable(state: AgentState) -> bool:
    """A message worth searching for: not small talk, and more than a word or two ("hmm")."""
    question = state["question"]
    return not is_small_talk(question) and len(question.split()) >= 3


def _has_documents(state: AgentState) -> bool:
    """Relevant passages from searches (count facts have negative ids)."""
    return any(i > 0 for i in state.get("relevant_ids", []))
