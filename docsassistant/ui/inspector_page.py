"""The search inspector page: why a document is (not) found.

For a query (and component), every hit's rank and score in the dense, BM25 and
identifier lists beside its fused rank, with bars, and the chunk text.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from docsassistant.search_explain import SearchExplanation, explain_search
from docsassistant.ui.safe_text import esc

ALL = "(all components)"
LIST_LABELS = {"dense": "Dense", "bm25": "BM25", "ident": "Identifiers"}


def overview(explanation: SearchExplanation) -> pd.DataFrame:
    """One row per hit: ranks and scores, each score also as a share of its list's best."""
    best = {
        name: max((h.lists[name].score or 0.0 for h in explanation.hits), default=0.0) or 1.0
        for name in LIST_LABELS
    }
    top_fused = explanation.hits[0].fused_score if explanation.hits else 1.0
    rows = []
    for hit in explanation.hits:
        row = {
            "#": hit.fused_rank,
            "component": hit.component,
            "source": hit.source_path,
            "section": hit.section,
        }
        row["fused"] = hit.fused_score / top_fused
        for name, label in LIST_LABELS.items():
            position = hit.lists[name]
            row[f"{label} rank"] = position.rank
            row[label] = (position.score or 0.0) / best[name]
        rows.append(row)
    return pd.DataFrame(rows)


def _bar(label: str, help_text: str) -> st.column_config.ProgressColumn:
    return st.column_config.ProgressColumn(label, help=help_text, min_value=0.0, max_value=1.0, format="%.2f")


def show(explanation: SearchExplanation) -> None:
    if not explanation.hits:
        st.info("No chunk matched. Try other words, or another component.")
        return
    found = ", ".join(f"{LIST_LABELS[n]} {c}" for n, c in explanation.candidates.items())
    idents = ", ".join(f"`{t}`" for t in explanation.identifiers) or "none"
    decay = explanation.document_decay
    weights = explanation.weights
    terms = " + ".join(f"{w:g} × {LIST_LABELS.get(n, n)}" for n, w in weights.items() if w)
    st.caption(
        f"Candidates per list: {found}. Code identifiers in the query: {idents}. Fused = {terms}, "
        "each list's score scaled to 0–1 among its candidates (min-max: a list's last candidate "
        f"scores 0 there), so at most {sum(weights.values()):g}; a document's second, third … "
        f"chunk keeps {decay:g}, {decay**2:g} … of its score."
    )
    if not any(explanation.candidates.get(n) for n in ("bm25", "ident")):
        st.warning(
            "No word of the query occurs in the searched documents: these hits are only the "
            "nearest in meaning, however high their bars.",
            icon=":material/travel_explore:",
        )
    config = {"fused": _bar("Fused", "fused score as a share of the top hit's")}
    for label in LIST_LABELS.values():
        config[label] = _bar(label, f"{label} score as a share of the best {label} score among these hits")
    st.dataframe(overview(explanation), hide_index=True, column_config=config, use_container_width=True)
    for hit in explanation.hits:
        ranks = " · ".join(
            f"{LIST_LABELS[n]} {'#' + str(p.rank) if p.rank else '—'}" for n, p in hit.lists.items()
        )
        # A file name or heading is the uploader's text: shown literally, never as Markdown.
        where = esc(f"{hit.component}/{hit.source_path} § {hit.section or '(top)'}")
        with st.expander(f"#{hit.fused_rank} {where} — {ranks}"):
            for name, position in hit.lists.items():
                score = "not a candidate" if position.score is None else f"score {position.score:.4f}"
                st.write(f"**{LIST_LABELS[name]}**: rank {position.rank or '—'}, {score}")
            st.write(f"**Fused**: rank {hit.fused_rank}, score {hit.fused_score:.5f}")
            st.text(hit.content)


def main() -> None:
    from docsassistant.search import SearchError, list_components

    st.title("Search inspector")
    st.write("See how each retriever ranks the chunks for a query, and how fusion combines them.")
    with st.form("inspect"):
        query = st.text_input("Query", key="inspect_query")
        component = st.selectbox("Component", [ALL, *list_components()], key="inspect_component")
        k = st.number_input("Hits", min_value=1, max_value=50, value=10, key="inspect_k")
        submitted = st.form_submit_button("Inspect")
    if not submitted and not st.session_state.get("inspect_done"):
        return
    st.session_state["inspect_done"] = True
    try:
        explanation = explain_search(query, None if component == ALL else component, int(k))
    except SearchError as exc:
        st.error(str(exc))
        return
    show(explanation)
