"""Hybrid search: identifiers that dense search misses, component filter, argument errors."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import write

from docsassistant.ingest import index_paths
from docsassistant.search import SearchError, search_docs

# Prose that is semantically close to the query's words but lacks the identifier, and one
# page that mentions the identifier only in passing inside unrelated text.
DISTRACTORS = {
    f"tuning-{i}.md": f"# Tuning guide {i}\n\n## Search depth\n\n"
    f"To get deeper search results, raise the maximum search depth and the candidate list size. "
    f"Depth {i} trades speed for recall when searching large graphs."
    for i in range(8)
}
NEEDLE = (
    "# Release notes\n\n## Kitchen\n\nWe repainted the office kitchen and bought a new coffee machine. "
    "Unrelated: the flag `zqx_graph.maxhops` was renamed. Lunch is served at noon on Fridays."
)


@pytest.fixture
def corpus(clean_db, tmp_path: Path) -> Path:
    for name, text in DISTRACTORS.items():
        write(tmp_path / "guides" / name, text)
    write(tmp_path / "guides" / "release-notes.md", NEEDLE)
    write(
        tmp_path / "api" / "vectors.md",
        "# Vectors\n\n## Distance\n\nUse the `<=>` operator for cosine distance.",
    )
    index_paths([tmp_path / "guides"], "guides", base=tmp_path)
    index_paths([tmp_path / "api"], "api", base=tmp_path)
    return tmp_path


def test_hybrid_finds_identifier_that_dense_search_misses(corpus: Path) -> None:
    query = "zqx_graph.maxhops search depth"
    dense = [h["source_path"] for h in search_docs(query, k=3, mode="dense")]
    hybrid = [h["source_path"] for h in search_docs(query, k=3)]
    assert "guides/release-notes.md" not in dense  # the premise: embeddings alone miss it
    assert hybrid[0] == "guides/release-notes.md"


def test_operator_identifier_is_searchable(corpus: Path) -> None:
    hits = search_docs("<=>", k=1, mode="text")
    assert hits and hits[0]["source_path"] == "api/vectors.md"


def test_hit_shape(corpus: Path) -> None:
    hit = search_docs("cosine distance operator", k=1)[0]
    assert {"chunk_id", "source_path", "title", "section", "content", "score"} <= hit.keys()
    assert hit["title"] == "Vectors" and hit["section"] == "Distance"
    assert isinstance(hit["score"], float)


def test_component_filter(corpus: Path) -> None:
    everything = {h["source_path"].split("/")[0] for h in search_docs("search depth cosine distance", k=10)}
    assert everything == {"guides", "api"}
    only_api = search_docs("search depth", component="api", k=10)
    assert only_api and {h["component"] for h in only_api} == {"api"}
    only_guides = search_docs("cosine distance", component="GUIDES", k=10)  # case-insensitive
    assert {h["component"] for h in only_guides} == {"guides"}


def test_one_long_page_does_not_fill_every_hit(clean_db, tmp_path: Path, monkeypatch) -> None:
    """Hybrid search decays a document's later chunks (fusion.diversify): the second
    document a two-part question needs is not pushed out by the first one's sections."""
    from docsassistant import search

    sections = "".join(
        f"## Replication part {i}\n\nReplication copies each shard to {i + 2} replica nodes; "
        f"replication lag part {i} is reported per replica node.\n\n"
        for i in range(6)
    )
    write(tmp_path / "docs" / "replication.md", f"# Replication\n\n{sections}")
    write(
        tmp_path / "docs" / "backups.md",
        "# Backups\n\n## Snapshots\n\nA snapshot of the data directory is written every night.",
    )
    index_paths([tmp_path / "docs"], "docs", base=tmp_path)
    query = "To how many replica nodes does replication copy each shard, and is there a nightly snapshot?"
    with monkeypatch.context() as patch:
        patch.setattr(search, "DIVERSIFIED_MODES", frozenset())
        raw = [h["source_path"] for h in search_docs(query, k=4)]
    assert raw == ["docs/replication.md"] * 4, raw  # the premise: undecayed, one page fills the hits
    hybrid = [h["source_path"] for h in search_docs(query, k=4)]
    assert hybrid[0] == "docs/replication.md" and "docs/backups.md" in hybrid


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "   "}, "empty"),
        ({"query": "x", "k": 0}, "from 1 to 50"),
        ({"query": "x", "k": 51}, "from 1 to 50"),
        ({"query": "x", "component": "nope"}, "Unknown component 'nope'. Known components: api, guides"),
    ],
)
def test_argument_errors(corpus: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(SearchError, match=message):
        search_docs(**kwargs)


def test_allowed_components_restrict_in_sql(corpus: Path) -> None:
    hits = search_docs("search depth cosine distance", k=10, allowed_components=["API"])
    assert hits and {h["component"] for h in hits} == {"api"}
    # a component outside the allowed ones is unknown, and the message names only allowed ones
    with pytest.raises(SearchError, match=r"Unknown component 'guides'. Known components: api\.$"):
        search_docs("search depth", component="guides", allowed_components=["api"])
    assert search_docs("search depth", allowed_components=[]) == []
    assert search_docs("cosine distance", component="api", allowed_components=["api", "guides"])


def test_every_mode_ranks_and_reports_its_list(corpus: Path) -> None:
    query = "zqx_graph.maxhops"
    assert search_docs(query, k=1, mode="ident")[0]["source_path"] == "guides/release-notes.md"
    assert search_docs(query, k=1, mode="bm25")[0]["source_path"] == "guides/release-notes.md"
    hit = search_docs(query, k=1)[0]
    assert hit["ident_rank"] == 1 and hit["bm25_rank"] == 1 and hit["dense_rank"] is not None


def test_control_characters_and_over_long_queries(corpus: Path) -> None:
    assert search_docs("cosine\x00 distance", k=1)[0]["source_path"] == "api/vectors.md"
    with pytest.raises(SearchError, match="limit is 1,000"):
        search_docs("x" * 1001)


def test_the_query_embedding_starts_before_the_connection_is_checked_out(
    corpus: Path, clean_db, embedder, monkeypatch
) -> None:
    """The embedding is a search's longest step and the dense query waits for it: it must
    not also wait for the pool checkout (and its ping). The checkout is held until the
    embedding has begun; started after the checkout, it would never begin in time."""
    from sqlalchemy import event

    embedding_began = threading.Event()
    held: list[bool] = []
    real_embed_query = embedder.embed_query

    def embed_query(text: str):
        embedding_began.set()
        return real_embed_query(text)

    def on_checkout(*_args) -> None:
        held.append(embedding_began.wait(10))

    monkeypatch.setattr(embedder, "embed_query", embed_query)
    event.listen(clean_db.pool, "checkout", on_checkout)
    try:
        hits = search_docs("cosine distance operator", k=1)
    finally:
        event.remove(clean_db.pool, "checkout", on_checkout)
    assert held and held[0] is True
    assert hits[0]["source_path"] == "api/vectors.md"


def test_a_page_is_found_among_many_duplicate_chunks(clean_db, tmp_path: Path) -> None:
    """Found by an independent QA pass: 108 chunks of pages that repeat one sentence (12
    distinct vectors among them) filled HNSW's top 50, so the one page that answers the
    question was in no dense rank and a filler chunk came first. A small store is now
    searched exactly."""
    write(tmp_path / "docs" / "alpha" / "setup.md", "# Alpha\n\nThe alpha daemon listens on port 7001.")
    write(tmp_path / "docs" / "beta" / "ops.md", "# Beta\n\nThe beta service retries five times.")
    for i in range(6):
        write(
            tmp_path / "filler" / f"c{i}.md",
            f"# Concurrent {i}\n\n" + f"concurrent ingest document {i} words. " * 400,
        )
    index_paths([tmp_path / "docs"], "docs", base=tmp_path / "docs")
    index_paths([tmp_path / "filler"], "docs", base=tmp_path)
    hits = search_docs("Which port does the alpha daemon listen on?", k=5)
    assert hits[0]["source_path"] == "alpha/setup.md"
    assert hits[0]["dense_rank"] == 1


def test_a_hit_inside_a_long_table_gets_its_header_back(clean_db, tmp_path: Path) -> None:
    """Blind QA round 17 (w40): a settings table longer than a chunk is cut by lines, and the
    hit holding `close_after`'s row had no header: "`5m` | 1m to 24h" read as any two figures,
    the model and the checks unable to tell the default from the range."""
    rows = "\n".join(
        f"| `setting_{i}` | `{i + 1}s` | 1s to 5m | Controls part {i} of the pipeline, described at some length here. |"
        for i in range(14)
    )
    table = (
        "| Setting | Default | Range | Description |\n|---|---|---|---|\n"
        f"{rows}\n| `close_after` | `5m` | 1m to 24h | A file handle is closed after this long idle. |"
    )
    write(
        tmp_path / "docs" / "inputs.md",
        f"# Inputs\n\n## File input\n\nThe file input tails files.\n\n{table}\n",
    )
    index_paths([tmp_path / "docs"], "docs", base=tmp_path)
    hit = next(h for h in search_docs("close_after idle file handle", k=5) if "`close_after`" in h["content"])
    assert hit["content"].startswith("| Setting | Default | Range | Description |\n|---|---|---|---|\n"), hit[
        "content"
    ]
    assert hit.get("table_header_added") is True
    assert hit["content"].count("| Setting | Default |") == 1
