"""The upload page: upload files into a component, see and manage what is indexed."""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import Progress, validate_component
from docsassistant.loaders import SUPPORTED_EXTENSIONS
from docsassistant.ui import uploads

RESULTS_KEY = "upload_results"
UPLOADER_KEY = "uploader_generation"
NOTICE_KEY = "upload_notice"


def _components() -> list[str]:
    from docsassistant.search import list_components

    return list_components()


def upload_section(settings: Settings, components: list[str]) -> None:
    st.subheader("Upload")
    component = st.selectbox(
        "Component",
        components,
        index=0 if components else None,
        accept_new_options=True,
        placeholder="Type a name for a new component",
        help="Pick a component, or type a new name (a-z, 0-9, '-', '_', '.') to create one.",
        key="upload_component",
    )
    generation = st.session_state.setdefault(UPLOADER_KEY, 0)
    files = st.file_uploader(
        "Files",
        accept_multiple_files=True,
        key=f"uploader-{generation}",
        max_upload_size=max(1, math.ceil(settings.max_upload_mb)),
        help=f"Supported: {', '.join(SUPPORTED_EXTENSIONS)}. At most {settings.max_upload_mb:g} MB per file.",
    )
    clicked = st.button(
        "Upload and index",
        type="primary",
        icon=":material/upload:",
        disabled=not files or not component,
    )
    if clicked and files and component:
        run_upload([uploads.Upload.from_streamlit(f) for f in files], component, settings)
    show_results()


def run_upload(batch: list[uploads.Upload], component: str, settings: Settings) -> None:
    """Save and index a batch with a progress bar; results survive the rerun that clears the uploader."""
    try:
        component = validate_component(component)
    except ValueError as exc:
        st.error(str(exc))
        return
    bar = st.progress(0.0, text=f"Indexing {len(batch)} file(s) into `{component}`…")

    def progress(p: Progress) -> None:
        chunks = f", {p.result.chunks} chunks" if p.result.chunks else ""
        bar.progress(
            p.done / max(p.total, 1),
            text=f"{p.done}/{p.total} · {p.result.source_path}: {p.result.status}{chunks}",
        )

    with st.spinner("Indexing (the first batch also loads the embedding model)…"):
        report = uploads.save_and_index(batch, component, settings=settings, progress=progress)
    st.session_state[RESULTS_KEY] = {
        "component": component,
        "rows": uploads.results_table(report),
        "summary": uploads.summary(report),
        "failed": report.counts()["failed"],
    }
    st.session_state[UPLOADER_KEY] += 1  # a fresh, empty uploader
    st.rerun()


def show_results() -> None:
    results = st.session_state.get(RESULTS_KEY)
    if not results:
        return
    text = f"Last upload into `{results['component']}`: {results['summary']}."
    (st.warning if results["failed"] else st.success)(text)
    st.dataframe(
        results["rows"],
        hide_index=True,
        width="stretch",
        column_config={
            "file": st.column_config.TextColumn("File"),
            "status": st.column_config.TextColumn("Status"),
            "chunks": st.column_config.NumberColumn("Chunks"),
            "reason": st.column_config.TextColumn("Reason", width="large"),
        },
    )


def _reindex(selected: list[tuple[str, str]]) -> None:
    messages = []
    for component, source_path in selected:
        result = uploads.reindex_document(component, source_path)
        detail = f" ({result.chunks} chunks)" if result.chunks else ""
        reason = f": {result.reason}" if result.reason else ""
        messages.append(f"{component}/{source_path}: {result.status}{detail}{reason}")
    st.session_state[NOTICE_KEY] = ("info", "Re-indexed: " + "; ".join(messages))


def _delete(selected: list[tuple[str, str]]) -> None:
    for component, source_path in selected:
        uploads.delete_upload(component, source_path)
    st.session_state[NOTICE_KEY] = ("success", f"Deleted {len(selected)} document(s) and their chunks.")
    st.session_state.pop("doc_selection", None)


def documents_section(settings: Settings, components: list[str]) -> None:
    from docsassistant.documents import list_documents, store_stats

    st.subheader("Indexed documents")
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        getattr(st, notice[0])(notice[1])
    if not components:
        st.caption("Nothing is indexed yet.")
        return
    shown = st.selectbox("Show component", ["All", *components], key="docs_component")
    stats = {s["component"]: s for s in store_stats()}
    documents = list_documents(None if shown == "All" else shown)
    for component in [c for c in components if shown in ("All", c)]:
        docs = [d for d in documents if d["component"] == component]
        s = stats.get(component, {"documents": len(docs), "chunks": sum(d["chunk_count"] for d in docs)})
        st.markdown(f"**{component}** · {s['documents']} document(s) · {s['chunks']} chunks")
        st.dataframe(
            [document_row(d, settings) for d in docs],
            hide_index=True,
            width="stretch",
            column_config={
                "document": st.column_config.TextColumn("Document"),
                "title": st.column_config.TextColumn("Title"),
                "chunks": st.column_config.NumberColumn("Chunks"),
                "size_kb": st.column_config.NumberColumn("Size (KB)", format="%.1f"),
                "indexed_at": st.column_config.DatetimeColumn("Indexed", format="YYYY-MM-DD HH:mm"),
                "uploaded": st.column_config.CheckboxColumn("Uploaded here"),
            },
        )
    options = [(d["component"], d["source_path"]) for d in documents]
    selected = st.multiselect(
        "Documents to re-index or delete",
        options,
        format_func=lambda o: f"{o[0]} / {o[1]}",
        key="doc_selection",
    )
    left, right = st.columns(2)
    left.button(
        "Re-index",
        icon=":material/sync:",
        disabled=not selected,
        on_click=_reindex,
        args=(selected,),
        width="stretch",
        help="Rebuild the chunks from the stored upload.",
    )
    with right.popover("Delete…", icon=":material/delete:", disabled=not selected, width="stretch"):
        st.markdown(f"Delete {len(selected)} document(s)? Their chunks will no longer be retrieved.")
        st.button("Delete", key="delete-confirm", type="primary", on_click=_delete, args=(selected,))


def document_row(doc: dict[str, Any], settings: Settings) -> dict[str, Any]:
    return {
        "document": doc["source_path"],
        "title": doc["title"],
        "chunks": doc["chunk_count"],
        "size_kb": round((doc["size_bytes"] or 0) / 1024, 1),
        "indexed_at": doc["indexed_at"],
        "uploaded": uploads.stored_file(doc["component"], doc["source_path"], settings) is not None,
    }


def main() -> None:
    from docsassistant.health import check_database

    settings = get_settings()
    st.title("Upload and index")
    db = check_database(settings)
    if not db["ok"]:
        st.error(db["detail"], icon=":material/database:")
        return
    try:
        components = _components()
    except Exception as exc:  # e.g. the store was built with another embedding model
        st.error(str(exc))
        return
    st.caption(
        "Upload documentation files into a component. Files are indexed one by one; a file that "
        "cannot be read fails alone, with the reason."
    )
    upload_section(settings, components)
    st.divider()
    documents_section(settings, components)
