"""Page setup shared by app.py and pages/: the tab title, the sidebar navigation, and
warming up the embedding model.

The app uses Streamlit's `pages/` folder. Its built-in navigation would label the main
page after the file ("app"), so it is hidden (`client.showSidebarNavigation = false` in
`.streamlit/config.toml`) and replaced with these links.
"""

from __future__ import annotations

import contextlib
import threading

import streamlit as st

PAGES = (
    ("app.py", "Chat", ":material/chat:"),
    ("pages/1_Upload_and_index.py", "Upload and index", ":material/upload_file:"),
    ("pages/2_Search_inspector.py", "Search inspector", ":material/manage_search:"),
)


@st.cache_resource(show_spinner=False)
def warm_up(embedding_model: str) -> threading.Thread:
    """Load the embedding model and the graph library in the background once per process
    (the ONNX session, or torch with DOCSASSISTANT_EMBEDDER=torch, takes seconds; igraph
    1.7-2.4 s on this machine), so the first
    question, upload or graph search does not wait for them."""

    def load() -> None:
        from docsassistant.config import get_settings
        from docsassistant.embeddings import get_embedder

        with contextlib.suppress(Exception):  # the page that needs the model reports errors
            get_embedder(get_settings()).embed_query("warm up")
        # After the model: a question asked meanwhile needs the model first. A graph search
        # that starts during this import waits on Python's import lock, no longer than the
        # import it would have done itself.
        with contextlib.suppress(Exception):
            import igraph  # noqa: F401

    thread = threading.Thread(target=load, name="docsassistant-warm-up", daemon=True)
    thread.start()
    return thread


def page_setup(title: str) -> None:
    from docsassistant.config import get_settings

    st.set_page_config(
        page_title=f"{title} · DocsAssistant", page_icon=":material/menu_book:", layout="centered"
    )
    warm_up(get_settings().embedding_model)
    with st.sidebar:
        for path, label, icon in PAGES:
            st.page_link(path, label=label, icon=icon)
