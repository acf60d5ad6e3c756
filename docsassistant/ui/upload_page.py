"""The upload page: upload files into a component, see and manage what is indexed."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

import streamlit as st

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import validate_component
from docsassistant.inputs import MAX_COMPONENT_CHARS, clean_text
from docsassistant.loaders import SUPPORTED_EXTENSIONS
from docsassistant.ui import upload_jobs, uploads

JOB_KEY = "upload_job"  # the id of this session's batch (upload_jobs.REGISTRY)
SAW_RUNNING_KEY = "upload_job_seen_running"
ADOPTED_KEY = "upload_missed_checked"
NOTICE_KEY = "upload_notice"


def _components() -> list[str]:
    from docsassistant.search import list_components

    return list_components()


def upload_section(settings: Settings, components: list[str], store_error: str | None) -> None:
    """The component picker, the file uploader and the button, in one form.

    Why a form: outside one, picking a component or a file reruns the page, and a file
    chosen while such a rerun is under way could be dropped (the browser test saw "no
    file selected" in 2 of 6 full-suite runs). In a form nothing reruns until the
    button is pressed, and `clear_on_submit` empties the uploader afterwards, so no
    widget key ever changes. The form is drawn on every run, also when the store is
    unavailable (then the button says so), so a selection is never unmounted.
    """
    st.subheader("Upload")
    with st.form("upload_form", clear_on_submit=True, border=False):
        component = st.selectbox(
            "Component",
            components,
            index=0 if components else None,
            accept_new_options=True,
            placeholder="Type a name for a new component",
            help="Pick a component, or type a new name (a-z, 0-9, '-', '_', '.') to create one.",
            key="upload_component",
        )
        files = st.file_uploader(
            "Files",
            accept_multiple_files=True,
            key="uploader",
            # Streamlit's own limit, not the app's: a file the picker refuses is never sent, and
            # clear_on_submit wipes its mark, so it would vanish from the report. One over the
            # app's limit is sent, and refused by check_size in a row that says why.
            max_upload_size=picker_limit_mb(),
            help=f"Supported: {', '.join(SUPPORTED_EXTENSIONS)}. At most {effective_limit_mb(settings):g} MB per file.",
        )
        clicked = st.form_submit_button("Upload and index", type="primary", icon=":material/upload:")
    if clicked:
        if store_error:
            st.error(f"Nothing was uploaded: {store_error}")
        elif not files:
            st.warning("Choose one or more files first.")
        elif not component:
            st.warning("Pick a component or type a new name first.")
        else:
            # The bytes are read here, in the script thread: Streamlit drops a session's files when it ends.
            start_upload([uploads.Upload.from_streamlit(f) for f in files], component, settings)
    show_batch(settings)


def picker_limit_mb() -> int:
    """The per-file limit of Streamlit's upload endpoint (server.maxUploadSize, in MB)."""
    return max(1, int(st.get_option("server.maxUploadSize")))


def effective_limit_mb(settings: Settings) -> float:
    """The largest file an upload can index: the app's limit, or Streamlit's if lower."""
    return min(settings.max_upload_mb, picker_limit_mb())


def start_upload(batch: list[uploads.Upload], component: str, settings: Settings) -> None:
    """Hand the batch to a worker (upload_jobs): it runs to the end even if this page is
    closed or rerun, which stops this script at its next Streamlit call."""
    try:
        component = validate_component(
            clean_text(component, what="component name", max_chars=MAX_COMPONENT_CHARS)
        )
    except ValueError as exc:
        st.error(str(exc))
        return
    st.session_state[JOB_KEY] = upload_jobs.REGISTRY.start(batch, component, settings)


def show_batch(settings: Settings) -> None:
    """This session's batch: live progress while it runs, then its report. A session that
    has none is shown, once, the latest batch whose page went away before its end."""
    job_id = st.session_state.get(JOB_KEY)
    if job_id is None and not st.session_state.get(ADOPTED_KEY):
        st.session_state[ADOPTED_KEY] = True
        missed = upload_jobs.REGISTRY.unwatched(settings)
        if missed is not None:
            job_id = st.session_state[JOB_KEY] = missed.id
    if job_id is None:
        return
    record = upload_jobs.REGISTRY.get(job_id, settings)
    if record is not None and record.state == upload_jobs.RUNNING:
        _live_batch(job_id, settings)
    else:
        _batch_view(job_id, settings, live=False)


@st.fragment(run_every=upload_jobs.POLL_S)
def _live_batch(job_id: str, settings: Settings) -> None:
    _batch_view(job_id, settings, live=True)


def _batch_view(job_id: str, settings: Settings, *, live: bool) -> None:
    record = upload_jobs.REGISTRY.get(job_id, settings)
    if record is None:  # its report file was pruned or removed
        st.session_state.pop(JOB_KEY, None)
        return
    upload_jobs.REGISTRY.watch(job_id)
    if record.state == upload_jobs.RUNNING:
        st.session_state[SAW_RUNNING_KEY] = job_id
        last = record.rows[-1] if record.rows else None
        chunks = f", {last.chunks} chunks" if last and last.chunks else ""
        text = (
            f"{record.done}/{record.total} · {last.file}: {last.status}{chunks}"
            if last
            else f"Indexing {record.total} file(s) into `{record.component}` (the first batch also "
            "loads the embedding model)…"
        )
        st.progress(record.done / max(record.total, 1), text=text)
        st.caption(
            "Indexing goes on if you leave this page or close the tab: the report is shown here when you come back."
        )
        return
    if st.session_state.pop(SAW_RUNNING_KEY, None) == job_id and live:
        st.rerun()  # it ended under this poll: redraw the whole page, document list included
    show_report(record)
    upload_jobs.REGISTRY.mark(job_id, settings, delivered=True)
    st.button("Dismiss", key="upload-dismiss", on_click=_dismiss, args=(job_id, settings))


def _dismiss(job_id: str, settings: Settings) -> None:
    upload_jobs.REGISTRY.mark(job_id, settings, dismissed=True)
    st.session_state.pop(JOB_KEY, None)


def show_report(record: upload_jobs.BatchRecord) -> None:
    ended = _local_time(record.finished_at or record.started_at)
    text = f"Last upload into `{record.component}`: {record.summary()}. Finished {ended}."
    if record.state == upload_jobs.STOPPED:
        st.error(f"The upload stopped: {record.error}")
    elif record.state == upload_jobs.INTERRUPTED:
        st.error(
            f"The upload started {_local_time(record.started_at)} was interrupted (the app stopped) "
            f"after {record.done} of {record.total} file(s): the files listed below were handled, "
            "the others were not indexed. Upload those again."
        )
        text = f"Last upload into `{record.component}`: {record.summary()}."
    (st.warning if record.failed or record.state != upload_jobs.FINISHED else st.success)(text)
    st.dataframe(
        [asdict(row) for row in record.rows],
        hide_index=True,
        width="stretch",
        column_config={
            "file": st.column_config.TextColumn("File"),
            "status": st.column_config.TextColumn("Status"),
            "chunks": st.column_config.NumberColumn("Chunks"),
            "reason": st.column_config.TextColumn("Reason", width="large"),
        },
    )
    # Such files are refused in the browser and never reach this script: no row is possible.
    limit = picker_limit_mb()
    st.caption(
        f"Files larger than {limit} MB are not in this table: the file picker refuses them before "
        "they are sent (it marks them until you press the button), so they were not indexed. Split "
        f"such a file, or raise Streamlit's server.maxUploadSize ({limit} MB, in .streamlit/config.toml) "
        "and DOCSASSISTANT_MAX_UPLOAD_MB."
    )


def _local_time(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


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
    # Staged files of a batch whose process was killed: removed now, not an hour later.
    uploads.sweep_stale_staging(uploads.staging_root(settings))
    st.title("Upload and index")
    st.caption(
        "Upload documentation files into a component. Files are indexed one by one; a file that "
        "cannot be read fails alone, with the reason."
    )
    # One slot that always exists: an error shown on one run only must not shift the form
    # below to another position (that would remount the uploader and drop its files).
    status = st.empty()
    components: list[str] = []
    db = check_database(settings)
    store_error = None if db["ok"] else db["detail"]
    if store_error is None:
        try:
            components = _components()
        except Exception as exc:  # e.g. the store was built with another embedding model
            store_error = str(exc)
    if store_error:
        status.error(store_error, icon=":material/database:")
    upload_section(settings, components, store_error)
    st.divider()
    if store_error is None:
        # Read again: an upload in this run may have created the first (or a new) component.
        documents_section(settings, _components())
