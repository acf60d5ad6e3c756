"""Page setup shared by app.py and pages/: the tab title, the sidebar navigation, and
warming up the embedding model.

The app uses Streamlit's `pages/` folder. Its built-in navigation would label the main
page after the file ("app"), so it is hidden (`client.showSidebarNavigation = false` in
`.streamlit/config.toml`) and replaced with these links.
"""

from __future__ import annotations

import threading

import streamlit as st

PAGES = (
    ("app.py", "Chat", ":material/chat:"),
    ("pages/1_Upload_and_index.py", "Upload and index", ":material/upload_file:"),
    ("pages/2_Search_inspector.py", "Search inspector", ":material/manage_search:"),
)


@st.cache_resource(show_spinner=False)
def warm_up(embedding_model: str) -> threading.Thread:
    """Once per process and model: the first question, upload or graph search then does not
    wait for the model or igraph (`docsassistant.warm_up`)."""
    from docsassistant.warm_up import start_warm_up

    return start_warm_up()


def page_setup(title: str) -> None:
    from docsassistant.config import get_settings

    st.set_page_config(
        page_title=f"{title} · DocsAssistant", page_icon=":material/menu_book:", layout="centered"
    )
    warm_up(get_settings().embedding_model)
    with st.sidebar:
        for path, label, icon in PAGES:
            st.page_link(path, label=label, icon=icon)
