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
    """Load the embedding model in the background once per process (importing torch takes
    seconds), so the first question or upload does not wait for it."""

    def load() -> None:
        from docsassistant.config import get_settings
        from docsassistant.embeddings import get_embedder

        with contextlib.suppress(Exception):  # the page that needs the model reports errors
            get_embedder(get_settings()).embed_query("warm up")

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
