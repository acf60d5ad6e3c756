"""Navigation (`?thread=`) and the chat page's sidebar: new conversation, component
filter, the conversation list, sharing and deleting the open conversation."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

import streamlit as st

from docsassistant.ui.safe_text import esc, plain_markdown

OFFLINE_KEY = "offline_results"  # search-only answers shown while the model is unavailable
NOTICE_KEY = "notice"  # a message to show once after a callback


def current_thread() -> str | None:
    return st.query_params.get("thread") or None


def open_thread(thread_id: str | None) -> None:
    """Switch the page to a conversation (None: a new one)."""
    st.query_params.clear()
    st.session_state.pop(OFFLINE_KEY, None)
    if thread_id:
        st.query_params["thread"] = thread_id


def share_thread(thread_id: str) -> None:
    from docsassistant.sharing import create_share

    try:
        st.session_state["new_share"] = create_share(thread_id)
    except ValueError as exc:
        st.session_state[NOTICE_KEY] = ("warning", str(exc))
    except Exception as exc:  # e.g. the database stopped: a callback's traceback would replace the page
        from docsassistant.agent.faults import database_fault_message

        message = database_fault_message(exc, "share again") or f"The link could not be created: {exc}"
        st.session_state[NOTICE_KEY] = ("error", message)


def revoke(token: str) -> None:
    from docsassistant.sharing import revoke_share

    revoke_share(token)
    if st.session_state.get("new_share") == token:
        st.session_state.pop("new_share")


def share_url(token: str) -> str:
    """The full link when the browser's URL is known, else a relative one."""
    base = ""
    try:
        base = st.context.url or ""
    except Exception:  # outside a browser session (tests)
        base = ""
    base = base.split("?")[0]
    if base and urlsplit(base).path == "":
        base += "/"
    return f"{base}?share={token}"


def utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def sidebar_top(shared: bool) -> str | None:
    """New conversation and the component filter; returns the component (None = all)."""
    from docsassistant.search import list_components

    with st.sidebar:
        st.button(
            "New conversation",
            icon=":material/add_comment:",
            type="primary",
            width="stretch",
            on_click=open_thread,
            args=(None,),
        )
        if shared:
            return None
        try:
            components = list_components()
        except Exception:  # the health line already explains an unreachable database
            components = []
        choice = st.selectbox(
            "Component",
            ["All", *components],
            key="component_filter",
            help="Search only this component's documents.",
        )
    return None if choice == "All" else choice


def sidebar_conversations(thread_id: str | None) -> None:
    from docsassistant.conversations import list_conversations

    with st.sidebar:
        st.markdown("**Conversations**")
        try:
            conversations = list_conversations()
        except Exception as exc:
            st.caption(f"Unavailable: {exc}")
            return
        if not conversations:
            st.caption("None yet: ask a question to start one.")
        with st.container(gap=None):
            for conv in conversations:
                current = conv["thread_id"] == thread_id
                label = short(conv["title"], 27 if current else 32)
                st.button(
                    f"**{esc(label)}**" if current else esc(label),
                    key=f"conv-{conv['thread_id']}",
                    type="tertiary",
                    icon=":material/chat:" if current else ":material/chat_bubble_outline:",
                    # Tooltips are markdown and show images: the title is escaped there too.
                    help=plain_markdown(conv["title"]) if label != conv["title"] else None,
                    on_click=open_thread,
                    args=(conv["thread_id"],),
                )


def short(title: str, limit: int = 32) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"


def delete_thread(thread_id: str) -> None:
    """Delete the conversation and go to a new one (callback)."""
    from docsassistant.conversations import ConversationNotFound, delete_conversation

    try:
        delete_conversation(thread_id)
    except (ConversationNotFound, RuntimeError) as exc:  # RuntimeError: ThreadBusy
        st.session_state[NOTICE_KEY] = ("warning", str(exc))
        return
    open_thread(None)
    st.session_state[NOTICE_KEY] = (
        "success",
        "The conversation was deleted. Its share links keep their snapshots.",
    )


def sidebar_delete(thread_id: str) -> None:
    with st.sidebar, st.popover("Delete conversation", icon=":material/delete:", width="stretch"):
        st.markdown(
            "Delete this conversation and all its turns? This cannot be undone; share links keep their snapshots."
        )
        st.button("Delete", key="confirm-delete", type="primary", on_click=delete_thread, args=(thread_id,))


def sidebar_share(thread_id: str) -> None:
    from docsassistant.sharing import list_shares

    with st.sidebar:
        st.divider()
        st.markdown("**Share this conversation**")
        st.button(
            "Share",
            icon=":material/share:",
            width="stretch",
            on_click=share_thread,
            args=(thread_id,),
            help="Create a read-only link to the conversation as it is now.",
        )
        try:
            links = list_shares(thread_id)
        except Exception as exc:  # the database went away mid-page: say so, as the list above does
            st.caption(
                f"Unavailable: {type(exc).__name__}. `docsassistant db up` starts the embedded database."
            )
            return
        active = [link for link in links if link["revoked_at"] is None]
        for link in active:
            fresh = link["token"] == st.session_state.get("new_share")
            st.caption(
                ("New link" if fresh else "Link")
                + f" · snapshot of {link['turns']} turn{'s' * (link['turns'] != 1)} · {utc(link['created_at'])}"
            )
            st.code(share_url(link["token"]), language=None, wrap_lines=True)
            st.button(
                "Revoke",
                key=f"revoke-{link['token']}",
                icon=":material/link_off:",
                type="tertiary",
                on_click=revoke,
                args=(link["token"],),
            )
        revoked = len(links) - len(active)
        if revoked:
            st.caption(f"{revoked} revoked link{'s' * (revoked != 1)}.")
