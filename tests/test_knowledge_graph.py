"""The knowledge graph: extraction, links, building it at ingestion, removal with the chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import write

from docsassistant.documents import delete_document
from docsassistant.ingest import index_paths
from docsassistant.knowledge_graph.extract import extract_chunk
from docsassistant.knowledge_graph.links import extract_links
from docsassistant.knowledge_graph.records import ChunkGraph, EntityMention, Relation


@pytest.fixture
def graph_db(clean_db):
    """An empty store, graph included (TRUNCATE does not fire the orphan trigger)."""
    with clean_db.begin() as conn:
        conn.execute(sa.text("TRUNCATE entities CASCADE"))
    return clean_db


def _phrases(engine, source_path: str) -> set[str]:
    with engine.connect() as conn:
        return set(
            conn.execute(
                sa.text(
                    "SELECT e.phrase FROM entities e JOIN mentions m ON m.entity_id = e.id "
                    "JOIN chunks c ON c.id = m.chunk_id JOIN documents d ON d.id = c.document_id "
                    "WHERE d.source_path = :p"
                ),
                {"p": source_path},
            ).scalars()
        )


def _counts(engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            t: conn.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one()
            for t in ("entities", "mentions", "relations", "document_links")
        }


def test_default_extractor_finds_identifiers_headings_names_and_terms() -> None:
    graph = extract_chunk(
        "PGvector",
        "Configuration › Index Options",
        "The PgVectorStore of Spring AI sets hnsw.ef_search for the similarity search. "
        "It was written by the American Institute of Physics.",
    )
    kinds = {e.phrase: e.kind for e in graph.entities}
    assert kinds["pgvectorstore"] == "identifier" and kinds["hnsw.ef_search"] == "identifier"
    assert kinds["configuration"] == "heading" and kinds["index options"] == "heading"
    assert kinds["pgvector"] == "title"
    assert kinds["spring ai"] == "name" and kinds["american institute of physics"] == "name"
    assert kinds["similarity search"] == "phrase"
    assert "the" not in kinds and "it" not in kinds
    assert graph.relations == [
        Relation(subject="configuration", predicate="has section", object="index options")
    ]


def test_links_markdown_relative_and_antora_xrefs() -> None:
    md = "See [the API](../ref/api.md#top), [site](https://example.org/x.md) and ![img](a.png)."
    assert [(x.label, x.target_path) for x in extract_links(md, "docs/guide/intro.md", ".md")] == [
        ("the API", "docs/ref/api.md")
    ]
    adoc = "Use xref:api/tools.adoc#calling[Tool Calling] or xref:ROOT:getting-started.adoc[]; link:other.adoc[Other]."
    links = extract_links(adoc, "spring-ai/pages/api/chat.adoc", ".adoc")
    assert [(x.label, x.target_path) for x in links] == [
        ("Tool Calling", "api/tools.adoc"),
        ("", "getting-started.adoc"),
        ("Other", "spring-ai/pages/api/other.adoc"),
    ]


def _linked_corpus(root: Path) -> None:
    write(
        root / "pages" / "guide.adoc",
        "= Vector Guide\n\n== Stores\n\nThe Acme Vector Store is described in xref:stores/acme.adoc[the Acme page].\n",
    )
    write(
        root / "pages" / "stores" / "acme.adoc",
        "= Acme Store\n\n== Defaults\n\nThe Acme Vector Store defaults to the cosine_distance metric.\n",
    )


def _assert_passage_counts_match(engine) -> None:
    """`entity_passages` (kept by triggers) equals the mentions counted now, entity by entity."""
    with engine.connect() as conn:
        kept = dict(
            conn.execute(sa.text("SELECT entity_id, passages FROM entity_passages WHERE passages <> 0")).all()
        )
        counted = dict(
            conn.execute(sa.text("SELECT entity_id, count(*) FROM mentions GROUP BY entity_id")).all()
        )
    assert kept == counted


def test_ingestion_builds_graph_and_resolves_links_in_any_order(graph_db, tmp_path: Path) -> None:
    _linked_corpus(tmp_path)
    # guide.adoc is written first, while its link target is not yet indexed.
    report = index_paths([tmp_path], "manual", base=tmp_path)
    assert report.counts()["added"] == 2
    assert {"acme vector store", "stores", "vector guide"} <= _phrases(graph_db, "pages/guide.adoc")
    acme = _phrases(graph_db, "pages/stores/acme.adoc")
    assert {"cosine_distance", "acme store", "defaults"} <= acme
    # The resolved link makes the guide's chunk mention the target's title.
    assert "acme store" in _phrases(graph_db, "pages/guide.adoc")
    _assert_passage_counts_match(graph_db)
    with graph_db.connect() as conn:
        link = conn.execute(
            sa.text(
                "SELECT l.target, d.source_path FROM document_links l JOIN documents d ON d.id = l.to_document_id"
            )
        ).one()
        assert tuple(link) == ("stores/acme.adoc", "pages/stores/acme.adoc")
        unembedded = conn.execute(
            sa.text("SELECT DISTINCT kind FROM entities WHERE embedding IS NULL")
        ).scalars()
        assert set(unembedded) <= {"identifier", "phrase"}
        embedded = conn.execute(sa.text("SELECT count(embedding) FROM entities")).scalar()
    # The time split `docsassistant ingest` prints counts the entities it embedded.
    assert embedded > 0 and report.timings.graph_entities_embedded == embedded
    assert report.timings.graph_write_s > 0 and report.timings.embed_chunks_s > 0

    before = _counts(graph_db)
    index_paths([tmp_path], "manual", base=tmp_path, force=True)
    assert _counts(graph_db) == before  # re-ingest is idempotent
    _assert_passage_counts_match(graph_db)


def test_graph_goes_with_its_chunks_and_orphans_are_dropped(graph_db, tmp_path: Path) -> None:
    _linked_corpus(tmp_path)
    index_paths([tmp_path], "manual", base=tmp_path)
    write(
        tmp_path / "pages" / "stores" / "acme.adoc", "= Acme Store\n\n== Limits\n\nAt most 2000 dimensions.\n"
    )
    index_paths([tmp_path], "manual", base=tmp_path)
    with graph_db.connect() as conn:
        phrases = set(conn.execute(sa.text("SELECT phrase FROM entities")).scalars())
    assert "cosine_distance" not in phrases and "limits" in phrases
    _assert_passage_counts_match(graph_db)
    # The link survives the target's re-index (same document row).
    with graph_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(to_document_id) FROM document_links")).scalar() == 1

    assert delete_document("manual", "pages/guide.adoc")
    with graph_db.connect() as conn:
        phrases = set(conn.execute(sa.text("SELECT phrase FROM entities")).scalars())
        assert conn.execute(sa.text("SELECT count(*) FROM document_links")).scalar() == 0
    assert "vector guide" not in phrases and "acme vector store" not in phrases
    assert "acme store" in phrases  # still mentioned by the other document
    _assert_passage_counts_match(graph_db)

    (tmp_path / "pages" / "stores" / "acme.adoc").unlink()
    (tmp_path / "pages" / "guide.adoc").unlink()
    index_paths([tmp_path], "manual", base=tmp_path, prune=True)
    assert _counts(graph_db) == {"entities": 0, "mentions": 0, "relations": 0, "document_links": 0}
    with graph_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM entity_passages")).scalar() == 0


def test_a_failing_graph_write_rolls_back_the_document(graph_db, tmp_path: Path, monkeypatch) -> None:
    import docsassistant.knowledge_graph.store as graph_store

    def broken(title: str, chunks: list) -> list[ChunkGraph]:
        # PostgreSQL refuses NUL in text: a real database error inside the transaction.
        bad = Relation(subject="a", predicate="bad\x00predicate", object="b")
        return [
            ChunkGraph(entities=[EntityMention(phrase="a", kind="name")], relations=[bad]) for _ in chunks
        ]

    monkeypatch.setattr(graph_store, "default_extractor", broken)
    write(tmp_path / "one.md", "# One\n\nSome text about things.")
    report = index_paths([tmp_path], "manual", base=tmp_path)
    assert report.counts()["failed"] == 1 and "Database error" in report.results[0].reason
    with graph_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar() == 0
        assert conn.execute(sa.text("SELECT count(*) FROM documents")).scalar() == 0
    assert _counts(graph_db)["entities"] == 0


def test_graph_off_writes_no_graph(graph_db, tmp_path: Path, monkeypatch) -> None:
    from docsassistant.config import get_settings

    monkeypatch.setenv("DOCSASSISTANT_GRAPH", "off")
    get_settings.cache_clear()
    try:
        write(tmp_path / "one.md", "# One\n\nThe Acme Vector Store is fast.")
        report = index_paths([tmp_path], "manual", base=tmp_path)
    finally:
        monkeypatch.delenv("DOCSASSISTANT_GRAPH")
        get_settings.cache_clear()
    assert _counts(graph_db)["mentions"] == 0
    assert report.timings.graph_entities_embedded == 0 and report.timings.embed_chunks_s > 0
