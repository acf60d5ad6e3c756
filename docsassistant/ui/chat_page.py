"""The chat page: conversations (`?thread=`), live turns, shared snapshots (`?share=`).

The URL is the state: `?thread=<id>` restores a conversation from its checkpoint (nothing
is re-run); `?share=<token>` shows a read-only snapshot that can be continued in a fork.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from docsassistant.agent.records import TurnRecord
from docsassistant.config import Settings, get_settings
from docsassistant.ui import render
from docsassistant.ui.live import LiveTurn
from docsassistant.ui.safe_text import esc, plain_markdown
from docsassistant.ui.sidebar import (
    NOTICE_KEY,
    OFFLINE_KEY,
    current_thread,
    open_thread,
    sidebar_conversations,
    sidebar_delete,
    sidebar_share,
    sidebar_top,
    utc,
)


@st.cache_data(ttl=15, show_spinner=False)
def _cached_health(ollama_host: str, chat_model: str, database: str) -> dict[str, Any]:
    from docsassistant.health import health

    return health(get_settings())


@st.cache_data(ttl=300, show_spinner=False)
def _may_think(ollama_host: str, chat_model: str) -> bool:
    from docsassistant.agent.llm import model_may_think

    return model_may_think(get_settings())


def health_status(settings: Settings) -> dict[str, Any]:
    """Health of the database and Ollama, re-checked at most every 15 s per configuration."""
    return _cached_health(
        settings.ollama_host, settings.chat_model, settings.database_url or str(settings.data_dir)
    )


def render_health(status: dict[str, Any]) -> None:
    db, model = status["database"], status["ollama"]
    dot = {True: ":green[●]", False: ":red[●]"}
    db_text = "Database connected" if db["ok"] else "Database unavailable"
    model_text = f"Ollama `{model['model']}` ready" if model["ok"] else "Ollama unavailable"
    st.caption(f"{dot[db['ok']]} {db_text} · {dot[model['ok']]} {model_text}")
    if not db["ok"]:
        st.error(db["detail"], icon=":material/database:")
    if not model["ok"]:
        st.error(
            f"**The chat model is unavailable.** {model['detail']}\n\n"
            "Until then, questions are answered with search results only.",
            icon=":material/power_off:",
        )


def continue_shared(token: str) -> None:
    """Fork a shared snapshot into a new thread and switch to it (callback)."""
    from docsassistant.agent.runner import fork_thread
    from docsassistant.sharing import ShareNotFound, get_share

    try:
        share = get_share(token)
        thread_id = fork_thread(share["turns"])
    except (ShareNotFound, ValueError) as exc:
        st.session_state[NOTICE_KEY] = ("error", str(exc))
        return
    open_thread(thread_id)
    st.session_state[NOTICE_KEY] = (
        "success",
        "This is your copy of the shared conversation: ask a follow-up below. The original is unchanged.",
    )


def show_notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        kind, message = notice
        getattr(st, kind)(message)


# ----------------------------------------------------------------------------- turns


def run_turn_live(
    question: str, thread_id: str | None, component: str | None, *, explained: bool = False, after: int = 0
) -> str | None:
    """Stream a turn into the page; returns the thread id (None if nothing was recorded).
    `after`: how many recorded turns the page shows above it (where an offline answer goes)."""
    from docsassistant.agent.llm import ModelUnavailable
    from docsassistant.agent.runner import stream_turn
    from docsassistant.agent.turn_lock import ThreadBusy
    from docsassistant.inputs import InputError

    events = stream_turn(question, thread_id, component)
    try:
        first = next(events)  # input, Ollama, the thread's lock: checked before anything is stored
    except ModelUnavailable as exc:
        show_offline(question, component, str(exc), thread_id, explained, after)
        return thread_id
    except (InputError, ThreadBusy) as exc:
        st.warning(str(exc), icon=":material/block:")
        return thread_id
    except Exception as exc:
        with st.chat_message("user"):
            st.markdown(plain_markdown(question))
        st.error(plain_markdown(f"The question could not be run: {exc}"), icon=":material/error:")
        return thread_id
    with st.chat_message("user"):
        st.markdown(plain_markdown(question))
    with st.chat_message("assistant"):
        settings = get_settings()
        # Only a reasoning model's draft is drawn as a draft until it ends (live.StreamedDraft).
        live = LiveTurn(may_think=_may_think(settings.ollama_host, settings.chat_model))
        try:
            live.on_event(first)
            for evt in events:
                live.on_event(evt)
        except Exception as exc:  # the runner records failures itself; this is the page's own
            live.fail(f"The turn stopped with an error: {type(exc).__name__}: {exc}")
    return live.thread_id or thread_id


def show_offline(
    question: str,
    component: str | None,
    message: str,
    thread_id: str | None,
    explained: bool = False,
    after: int = 0,
) -> None:
    """The model is unavailable: say what to run and show the most relevant passages.
    Kept in the session (nothing is recorded) with `after`, the number of recorded turns
    above it, so later reruns draw it in the same place among the turns."""
    from docsassistant.search import search_without_model

    hits, note = search_without_model(question, component)
    result = {
        "question": question,
        "hits": hits,
        "message": message,
        "note": note,
        "thread": thread_id,
        "after": after,
    }
    st.session_state.setdefault(OFFLINE_KEY, []).append(result)
    render_offline(result, explained)


def render_offline(result: dict[str, Any], explained: bool = False) -> None:
    """A search-only answer; `explained`: the page header already says what to run."""
    render.render_search_results(
        result["question"], result["hits"], result["note"], None if explained else result["message"]
    )


# ----------------------------------------------------------------------------- pages


def render_shared(token: str) -> None:
    from docsassistant.sharing import ShareNotFound, get_share

    sidebar_top(shared=True)
    try:
        share = get_share(token)
    except ShareNotFound as exc:
        st.title("Shared conversation")
        st.error(str(exc), icon=":material/link_off:")
        return
    turns = share["turns"]
    with st.container():
        st.header(esc(share["title"]), anchor=False)
        show_notice()
        st.info(
            f"Read-only snapshot of a shared conversation ({len(turns)} turn{'s' * (len(turns) != 1)}, "
            f"shared {utc(share['created_at'])}). Continue it to ask follow-ups: "
            "you get your own copy and the original stays unchanged.",
            icon=":material/visibility:",
        )
    for record in turns:
        render.render_turn(record)
    st.button(
        "Continue this conversation",
        icon=":material/forum:",
        type="primary",
        on_click=continue_shared,
        args=(token,),
    )


def render_chat(settings: Settings) -> None:
    from docsassistant.agent.runner import load_turns
    from docsassistant.conversations import get_conversation

    status = health_status(settings)
    thread_id = current_thread()
    component = sidebar_top(shared=False)
    turns: list[TurnRecord] = []
    conversation = None
    if thread_id and status["database"]["ok"]:
        turns = load_turns(thread_id)
        conversation = get_conversation(thread_id)
        if not conversation and not turns:
            st.session_state[NOTICE_KEY] = ("warning", "That conversation does not exist; this is a new one.")
            open_thread(None)
            thread_id = None
    # One container for everything above the turns, so the turns keep their positions from
    # run to run (a shifted chat message would show stale content while a turn streams).
    with st.container():
        if conversation:
            st.header(esc(conversation["title"]), anchor=False)
        else:
            st.title("DocsAssistant", anchor=False)
        render_health(status)
        show_notice()
        if not turns and not thread_id:
            st.caption("Ask a question about the indexed documentation. Every answer cites its sources.")
    if not status["database"]["ok"]:
        return
    # Offline answers are not recorded turns: each is drawn after the turns that came before
    # it (drawing them all below the turns put one under questions asked after it).
    offline = [r for r in st.session_state.get(OFFLINE_KEY, []) if r["thread"] == thread_id]
    for index in range(len(turns) + 1):
        for result in offline:
            if min(result.get("after", 0), len(turns)) == index:
                render_offline(result, explained=not status["ollama"]["ok"])
        if index < len(turns):
            render.render_turn(turns[index])
    # `disable`: no second question while this one runs (the runner's per-thread lock
    # refuses one from another tab).
    question = st.chat_input("Ask about the documentation", submit_mode="disable")
    if question is not None:
        new_thread = run_turn_live(
            question, thread_id, component, explained=not status["ollama"]["ok"], after=len(turns)
        )
        if new_thread and new_thread != thread_id:
            # The conversation's first recorded turn opened its thread: the offline answers
            # asked before it belong to that conversation, above the turn.
            for result in st.session_state.get(OFFLINE_KEY, []):
                if result["thread"] == thread_id:
                    result["thread"] = new_thread
            thread_id = new_thread
            st.query_params["thread"] = thread_id
    sidebar_conversations(thread_id)
    if thread_id and (turns or question):
        sidebar_share(thread_id)
        sidebar_delete(thread_id)


def main() -> None:
    """The chat page (entry point used by app.py)."""
    token = st.query_params.get("share")
    if token:
        render_shared(token)
    else:
        render_chat(get_settings())
