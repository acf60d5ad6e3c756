"""Running a turn: health checks first, then the graph, streaming trace events and
answer tokens; reading finished turns back from the checkpoint."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from docsassistant.agent.configuration import AgentLimits
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.graph import build_graph
from docsassistant.agent.llm import check_ollama, make_chat_model
from docsassistant.config import Settings, get_settings
from docsassistant.conversations import touch_conversation
from docsassistant.db import libpq_uri
from docsassistant.store import open_store

# Answer tokens are streamed from these nodes (decide answers greetings and declines).
TOKEN_NODES = ("generate", "decide")

_graphs: dict[str, CompiledStateGraph] = {}
_graphs_lock = threading.Lock()


def get_graph(settings: Settings | None = None) -> CompiledStateGraph:
    """The compiled graph with a PostgreSQL checkpointer (one pool per process)."""
    settings = settings or get_settings()
    uri = libpq_uri(settings)
    with _graphs_lock:
        if uri not in _graphs:
            open_store(settings, check=False)
            pool = ConnectionPool(
                uri,
                min_size=1,
                max_size=4,
                # setup() runs CREATE INDEX CONCURRENTLY: it needs autocommit.
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
                open=True,
            )
            saver = PostgresSaver(pool)
            saver.setup()
            _graphs[uri] = build_graph(saver)
        return _graphs[uri]


def config_for(thread_id: str, settings: Settings) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": settings.recursion_limit}


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
        "started_at": time.time(),
    }


def stream_turn(
    question: str,
    thread_id: str | None = None,
    component: str | None = None,
    *,
    settings: Settings | None = None,
    llm: BaseChatModel | None = None,
) -> Iterator[dict[str, Any]]:
    """Run one turn, yielding trace events, `token` events and finally
    `{"type": "turn_complete", "thread_id", "record"}`.

    Ollama and the database are checked before anything is written, so a turn that
    cannot run leaves no trace in the conversation.
    """
    settings = settings or get_settings()
    question = (question or "").strip()
    if not question:
        raise ValueError("The question is empty.")
    if llm is None:
        check_ollama(settings)
        llm = make_chat_model(settings)
    graph = get_graph(settings)
    thread_id = thread_id or uuid.uuid4().hex
    limits = AgentLimits.from_settings(settings)
    context = AgentContext(llm=llm, limits=limits, deadline=time.monotonic() + limits.turn_timeout_s)
    config = config_for(thread_id, settings)
    touch_conversation(thread_id, question, settings=settings)
    try:
        for mode, chunk in graph.stream(
            turn_input(question, component),
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
                yield {"type": "token", "node": node, "text": message.content}
    except GraphRecursionError:
        reason = f"the step limit ({settings.recursion_limit} graph steps) was reached"
        stopped = [
            event("budget_stop", node="graph", reason=reason),
            flag("budget_reached", f"Stopped: {reason}."),
        ]
        yield from stopped
        # Close the turn so the conversation stays consistent: finalize → record.
        graph.update_state(config, {"stop_reason": reason, "trace": stopped}, as_node="no_answer")
        for _ in graph.stream(None, config, context=context, durability="exit"):
            pass
    record = graph.get_state(config).values["turns"][-1]
    yield {"type": "turn_complete", "thread_id": thread_id, "record": record}


def run_turn(
    question: str, thread_id: str | None = None, component: str | None = None, **kwargs: Any
) -> dict[str, Any]:
    """Run a turn to the end; returns `{"thread_id", **record}`."""
    last: dict[str, Any] = {}
    for evt in stream_turn(question, thread_id, component, **kwargs):
        last = evt
    return {"thread_id": last["thread_id"], **last["record"]}


def load_turns(thread_id: str, *, settings: Settings | None = None) -> list[dict[str, Any]]:
    """The finished turns of a thread, from the checkpoint (nothing is re-run)."""
    settings = settings or get_settings()
    state = get_graph(settings).get_state(config_for(thread_id, settings))
    return list(state.values.get("turns", [])) if state and state.values else []


def fork_thread(turns: list[dict[str, Any]], *, settings: Settings | None = None) -> str:
    """A new thread whose history is `turns` (used to continue a shared conversation)."""
    settings = settings or get_settings()
    if not turns:
        raise ValueError("There is nothing to continue: the conversation has no turns.")
    thread_id = uuid.uuid4().hex
    messages: list[Any] = []
    for turn in turns:
        messages += [HumanMessage(turn["question"]), AIMessage(turn["answer"])]
    graph = get_graph(settings)
    graph.update_state(
        config_for(thread_id, settings), {"messages": messages, "turns": turns}, as_node="record"
    )
    touch_conversation(thread_id, f"(continued) {turns[0]['question']}", settings=settings)
    return thread_id
