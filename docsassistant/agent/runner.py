"""Running a turn: health checks first, then the graph, streaming trace events and
answer tokens; reading finished turns back from the `turn_records` table.

A turn holds its thread's lock (one turn at a time per thread), saves its question
before the graph runs, and ends recorded whatever happens: completed, or failed with
a stop reason and a message that says what to start or retry.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph

from docsassistant.agent.budget import STOP_PREFIX, stopped_answer
from docsassistant.agent.checkpointing import config_for, forget_graph, get_checkpointer, get_graph
from docsassistant.agent.configuration import AgentLimits
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.faults import fault_reason, is_database_fault
from docsassistant.agent.llm import check_ollama, make_chat_model
from docsassistant.agent.nodes.finalize import turn_record
from docsassistant.agent.records import TurnRecord
from docsassistant.agent.threads import adopt_legacy_turns, fork_thread, load_turns  # noqa: F401 (callers import them from here)
from docsassistant.agent.turn_lock import BUSY_WAIT_S, thread_turn_lock
from docsassistant.agent.turn_store import finish_turn, load_record, start_turn
from docsassistant.config import Settings, get_settings
from docsassistant.conversations import touch_conversation
from docsassistant.db import libpq_uri
from docsassistant.inputs import MAX_COMPONENT_CHARS, clean_question, clean_text
from docsassistant.readonly_sql import count_chunks
from docsassistant.search import check_known_component, list_components, search_docs

# Answer tokens are streamed from generate only: decide's text is a tool call written as
# text, a standalone rewrite (JSON) or a reply not yet checked, none of it an answer to draw
# live (its greetings and declines appear when the turn completes).
TOKEN_NODES = ("generate",)


def turn_input(question: str, component: str | None) -> dict[str, Any]:
    """A new turn: the question joins the history; per-turn fields start empty."""
    resets = ("steps", "queries", "chunks", "relevant_ids", "trace", "model_calls", "prompt_tokens")
    return {
        "messages": [HumanMessage(question)],
        "question": question,
        "component": component or None,
        **dict.fromkeys(resets),
        "pending_calls": [],
        "new_chunk_ids": [],
        "sufficient": False,
        "searches": 0,
        "rewrites": 0,
        "no_progress": False,
        "counted": False,
        "answer": "",
        "sources": [],
        "citations": [],
        "unsupported": [],
        "regenerate": False,
        "regenerated": False,
        "verification": {},
        "stop_reason": None,
        "failed": False,
        # Cleared, so a turn that fails before its own is never recorded with the last one's.
        "standalone_question": None,
        "started_at": time.time(),
    }


def stream_turn(
    question: str,
    thread_id: str | None = None,
    component: str | None = None,
    *,
    settings: Settings | None = None,
    llm: BaseChatModel | None = None,
    busy_wait_s: float = BUSY_WAIT_S,
    allowed_components: Sequence[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Run one turn, yielding trace events, `token` events and finally
    `{"type": "turn_complete", "thread_id", "record": TurnRecord}`.

    Refused before anything is written: bad input (`InputError`; an unknown component,
    `SearchError`), Ollama unavailable (`ModelUnavailable`), another turn running on the
    thread (`ThreadBusy`, after waiting `busy_wait_s`). From then on the turn is recorded, whatever fails.
    `allowed_components` (an MCP key's; None: all) limits every search and count.
    """
    settings = settings or get_settings()
    question = clean_question(question)
    component = clean_text(component, what="component name", max_chars=MAX_COMPONENT_CHARS, required=False)
    if component:  # a mistyped one would cost model calls and end "no search could run"
        check_known_component(component.lower(), allowed_components, settings)
    if llm is None:
        check_ollama(settings)
        llm = make_chat_model(settings)
    graph = get_graph(settings)
    thread_id = thread_id or uuid.uuid4().hex
    with thread_turn_lock(libpq_uri(settings), thread_id, busy_wait_s):
        touch_conversation(thread_id, question, settings=settings)
        adopt_legacy_turns(thread_id, settings=settings)
        running = start_turn(thread_id, question, component or None, settings=settings)
        _catch_up_history(graph, running, settings)
        try:
            record = yield from _run_graph(graph, running, llm, settings, allowed_components)
        except GeneratorExit:  # the caller stopped reading (a closed page): say so, then stop
            finish_turn(_stopped(running, CANCELLED), settings=settings)
            raise
        try:
            finish_turn(record, settings=settings)
            # Only the latest checkpoint is ever resumed: older ones would grow the
            # thread's storage with the square of its turns.
            get_checkpointer(settings).prune([thread_id], strategy="keep_latest")
        except Exception as exc:  # the database went away: the next turn closes this one
            record = record.model_copy(update={"error": record.error or f"Not saved: {fault_reason(exc)}"})
    yield {"type": "turn_complete", "thread_id": thread_id, "record": record}


CANCELLED = "the turn was cancelled before it finished (the page was closed or reloaded)"


def _stopped(
    running: TurnRecord, reason: str, trace: list[dict[str, Any]] | None = None, **known: Any
) -> TurnRecord:
    """The record of a turn that ended early: the question kept, the reason as its answer."""
    state = {
        "question": running.question,
        "component": running.component,
        "answer": f"{STOP_PREFIX}{reason}",
        "trace": trace or [],
        # The graph's state may be out of reach (the database went away): the queries run
        # so far are read back from the trace.
        "queries": [
            e["args"]["query"]
            for e in trace or []
            if e.get("type") == "tool_call"
            and e.get("tool") == "search_docs"
            and e.get("args", {}).get("query")
        ],
        "stop_reason": reason,
        "started_at": running.started_at,
    }
    return turn_record(state, thread_id=running.thread_id, index=running.index, status="failed", **known)


def _run_graph(
    graph: CompiledStateGraph,
    running: TurnRecord,
    llm: BaseChatModel,
    settings: Settings,
    allowed_components: Sequence[str] | None = None,
) -> Iterator[dict[str, Any]]:
    """Stream the graph for one turn; returns its record (completed, or failed on any error)."""
    limits = AgentLimits.from_settings(settings)
    context = AgentContext(llm=llm, limits=limits, deadline=time.monotonic() + limits.turn_timeout_s)
    if allowed_components is not None:
        allowed = {c.strip().lower() for c in allowed_components}
        context.search = partial(search_docs, allowed_components=allowed_components)
        context.count = partial(count_chunks, allowed_components=allowed_components)
        # An error naming the known components must not name the ones the caller may not read.
        context.components = lambda: [c for c in list_components(settings) if c in allowed]
    config = config_for(running.thread_id or "", settings)
    trace: list[dict[str, Any]] = []
    try:
        for evt in _graph_events(graph, running, config, context, settings):
            if evt["type"] != "token":
                trace.append(evt)
            yield evt
        state = graph.get_state(config).values
        if state.get("failed"):  # a model call failed before there was an answer
            known = {"status": "failed", "error": state.get("stop_reason")}
            return turn_record(state, thread_id=running.thread_id, index=running.index, **known)
        return turn_record(state, thread_id=running.thread_id, index=running.index, status="completed")
    except Exception as exc:
        reason = fault_reason(exc)
        failure = event("error", node="runner", message=f"{type(exc).__name__}: {exc}"[:500])
        trace.append(failure)
        yield failure
        record = _stopped(running, reason, trace, error=failure["message"])
        if is_database_fault(exc):
            forget_graph(settings)
        else:
            _close_checkpoint(graph, config, running.question, record.answer)
        return record


def _graph_events(
    graph: CompiledStateGraph,
    running: TurnRecord,
    config: dict[str, Any],
    context: AgentContext,
    settings: Settings,
) -> Iterator[dict[str, Any]]:
    try:
        for mode, chunk in graph.stream(
            turn_input(running.question, running.component),
            config,
            context=context,
            stream_mode=["custom", "messages"],
            # One checkpoint per turn, written when the run ends (also on an error): the
            # intermediate steps are never resumed, and ~9 writes per turn were most of
            # the graph's own overhead. A crash mid-turn leaves the previous turn intact.
            durability="exit",
        ):
            if mode == "custom":
                yield chunk
                continue
            message, meta = chunk
            node = meta.get("langgraph_node")
            if node in TOKEN_NODES and isinstance(message.content, str) and message.content:
                # `call`: one model call's id; a second call (a regeneration) starts a new draft.
                yield {"type": "token", "node": node, "call": message.id, "text": message.content}
    except GraphRecursionError:
        reason = f"the step limit ({settings.recursion_limit} graph steps) was reached"
        stopped = [
            event("budget_stop", node="graph", reason=reason),
            flag("budget_reached", f"Stopped: {reason}."),
        ]
        yield from stopped
        # Close the turn so the conversation stays consistent: → finalize.
        graph.update_state(config, {"stop_reason": reason, "trace": stopped}, as_node="no_answer")
        for _mode, chunk in graph.stream(
            None, config, context=context, stream_mode=["custom"], durability="exit"
        ):
            yield chunk


def _catch_up_history(graph: CompiledStateGraph, running: TurnRecord, settings: Settings) -> None:
    """A turn that lost its database could not write its question to the conversation's
    checkpoint (its record, marked interrupted, is in `turn_records`). Before the next turn,
    that question is added to the checkpoint, with a stopped turn's answer, so a follow-up
    ("and what does it control?") is read against it. A completed turn's question is
    always there: its checkpoint was written before its record was finished."""
    previous = load_record(running.thread_id or "", running.index - 1, settings=settings)
    if previous is None or previous.status == "completed":
        return
    config = config_for(running.thread_id or "", settings)
    state = graph.get_state(config)
    messages = list(state.values.get("messages", [])) if state and state.values else []
    asked = [m.content for m in messages if isinstance(m, HumanMessage)]
    if asked and asked[-1] == previous.question:
        return
    update = [HumanMessage(previous.question), stopped_answer(previous.answer)]
    graph.update_state(config, {"messages": update}, as_node="finalize")


def _close_checkpoint(graph: CompiledStateGraph, config: dict[str, Any], question: str, answer: str) -> None:
    """Best effort after a failure: the history shows the question and what happened, so
    the model's next turn reads a consistent conversation. Skipped if the database is gone."""
    try:
        state = graph.get_state(config)
        messages = list(state.values.get("messages", [])) if state and state.values else []
        asked = bool(messages) and isinstance(messages[-1], HumanMessage) and messages[-1].content == question
        update = [stopped_answer(answer)] if asked else [HumanMessage(question), stopped_answer(answer)]
        graph.update_state(config, {"messages": update, "answer": answer}, as_node="finalize")
    except Exception:  # the turn record already holds the question and the failure
        pass


def run_turn(
    question: str, thread_id: str | None = None, component: str | None = None, **kwargs: Any
) -> TurnRecord:
    """Run a turn to the end; returns its record (`record.thread_id` names the thread)."""
    last: dict[str, Any] = {}
    for evt in stream_turn(question, thread_id, component, **kwargs):
        last = evt
    return last["record"]
