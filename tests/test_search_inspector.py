"""explain_search (the typed per-list ranks and scores) and the search inspector page:
AppTest, and a real browser on the running app."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import write
from streamlit.testing.v1 import AppTest

from docsassistant.ingest import index_paths
from docsassistant.search import SearchError, search_docs
from docsassistant.search_explain import SearchExplanation, explain_search

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/2_Search_inspector.py"
PAGES = {
    "engine.md": "# Engine\n\n## Warp core\n\nThe warp core is tuned with `warp_core.max_flux`. Flux above nine melts it.",
    "crew.md": "# Crew\n\n## Rota\n\nThe crew rota changes weekly; engineers keep the warp core running.",
    "galley.md": "# Galley\n\n## Menu\n\nSoup on Mondays, bread every day, coffee always.",
}


@pytest.fixture
def ship(clean_db, tmp_path: Path) -> Path:
    for name, text in PAGES.items():
        write(tmp_path / "ship" / name, text)
    index_paths([tmp_path / "ship"], "ship", base=tmp_path)
    return tmp_path


def test_explanation_matches_search_and_reports_every_list(ship: Path) -> None:
    query = "how do I tune warp_core.max_flux"
    explanation = explain_search(query, "ship", k=3)
    assert isinstance(explanation, SearchExplanation)
    assert explanation.identifiers == ["warp_core.max_flux"]
    hits = search_docs(query, "ship", k=3)
    assert [h.chunk_id for h in explanation.hits] == [h["chunk_id"] for h in hits]
    top = explanation.hits[0]
    assert top.source_path == "ship/engine.md" and top.fused_rank == 1
    assert (
        top.lists["ident"].rank == 1 and top.lists["bm25"].rank == 1 and top.lists["dense"].rank is not None
    )
    assert 0 < top.lists["dense"].score <= 1
    # a chunk outside the identifier list has no identifier rank or score
    assert all(h.lists["ident"].rank is None for h in explanation.hits if h.source_path != "ship/engine.md")
    assert explanation.candidates == {"bm25": 1, "ident": 1, "dense": 3}  # the identifier is one lexeme


def test_explanation_respects_allowed_components_and_checks_input(ship: Path) -> None:
    assert explain_search("warp core", allowed_components=["other"]).hits == []
    with pytest.raises(SearchError, match="empty"):
        explain_search("  ")
    with pytest.raises(SearchError, match="Unknown component 'nope'"):
        explain_search("warp core", "nope")


@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_inspector_page_shows_ranks_bars_and_text(ship: Path) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    assert not at.exception
    at.text_input(key="inspect_query").set_value("warp_core.max_flux tuning")
    at.selectbox(key="inspect_component").set_value("ship")
    at.button[0].click().run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table["source"].iloc[0] == "ship/engine.md"
    assert {"fused", "Dense", "BM25", "Identifiers", "Dense rank", "BM25 rank", "Identifiers rank"} <= set(
        table.columns
    )
    assert table["fused"].iloc[0] == pytest.approx(1.0)
    assert table["component"].iloc[0] == "ship"  # the same file in two components looked doubled
    assert any("Flux above nine melts it" in t.value for t in at.text)
    assert "at most 2" in at.caption[0].value and not at.warning  # the words of the query occur


@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_inspector_shows_an_uploaded_name_literally(clean_db, tmp_path: Path) -> None:
    """An uploader's file name such as `**bold** [x](http:evil).md` became bold text and a live
    link in the hit's label (QA round 7a, C6b); a query sharing no word with the documents
    showed confident bars with no word of warning (C6c)."""
    name = "**bold** [x](http:evil).md"
    write(tmp_path / "up" / name, "# Inject\n\nThe injected-name marker text.")
    index_paths([tmp_path / "up"], "up", base=tmp_path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    at.text_input(key="inspect_query").set_value("injected-name marker")
    at.button[0].click().run()
    label = at.expander[0].label
    assert "\\*\\*bold\\*\\*" in label and "\\[x\\](http:evil)" in label
    at.text_input(key="inspect_query").set_value("zzqqxxnonexistentword")
    at.button[0].click().run()
    assert at.warning and "No word of the query occurs" in at.warning[0].value


@pytest.mark.usefixtures("fresh_streamlit_caches")
def test_inspector_page_reports_a_bad_query(ship: Path) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    at.text_input(key="inspect_query").set_value("x" * 1001)
    at.button[0].click().run()
    assert at.error and "limit is 1,000" in at.error[0].value
