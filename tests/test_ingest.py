"""Ingestion: idempotency by content hash, updates, prune, cascade, one bad file."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from conftest import write

from docsassistant.documents import delete_document, list_documents, store_stats
from docsassistant.ingest import index_paths
from docsassistant.search import search_docs


def _chunks(engine, source_path: str) -> list[tuple]:
    with engine.connect() as conn:
        return conn.execute(
            sa.text(
                "SELECT c.ordinal, c.section, c.content FROM chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE d.source_path = :p ORDER BY c.ordinal"
            ),
            {"p": source_path},
        ).all()


def _corpus(root: Path) -> None:
    write(
        root / "guide.md",
        "---\ntitle: User Guide\n---\n# Guide\n\n## Install\n\nRun the installer.\n\n## Usage\n\nCall the API.",
    )
    write(root / "ref" / "api.adoc", "= API Reference\n\n== Endpoints\n\nGET /items lists items.\n")


def test_reingest_is_idempotent_and_updates_replace_chunks(clean_db, tmp_path: Path) -> None:
    _corpus(tmp_path)
    first = index_paths([tmp_path], "manual", base=tmp_path)
    counts = {"added": 2, "updated": 0, "unchanged": 0, "removed": 0, "failed": 0, "skipped": 0}
    assert first.counts() == counts
    docs = {d["source_path"]: d for d in list_documents("manual")}
    assert docs["guide.md"]["title"] == "User Guide"
    # The sole H1 is the document's title, so it is not repeated in the section path.
    assert [s for _, s, _ in _chunks(clean_db, "guide.md")] == ["Install", "Usage"]

    again = index_paths([tmp_path], "manual", base=tmp_path)
    assert again.counts()["unchanged"] == 2 and again.counts()["added"] == 0

    write(tmp_path / "guide.md", "# Guide\n\n## Install\n\nUse the package manager instead.")
    updated = index_paths([tmp_path], "manual", base=tmp_path)
    assert updated.counts()["updated"] == 1 and updated.counts()["unchanged"] == 1
    contents = " ".join(c for _, _, c in _chunks(clean_db, "guide.md"))
    assert "package manager" in contents and "Call the API" not in contents
    after = {d["source_path"]: d for d in list_documents("manual")}
    assert after["guide.md"]["id"] == docs["guide.md"]["id"]  # same row, new chunks


def test_prune_removes_documents_whose_files_are_gone(clean_db, tmp_path: Path) -> None:
    _corpus(tmp_path)
    index_paths([tmp_path], "manual", base=tmp_path)
    (tmp_path / "ref" / "api.adoc").unlink()
    report = index_paths([tmp_path], "manual", base=tmp_path, prune=True)
    assert [r.source_path for r in report.by_status("removed")] == ["ref/api.adoc"]
    assert [d["source_path"] for d in list_documents("manual")] == ["guide.md"]
    assert _chunks(clean_db, "ref/api.adoc") == []


def test_delete_cascades_to_chunks_and_search(clean_db, tmp_path: Path) -> None:
    write(tmp_path / "zebra.md", "# Zebras\n\nThe quagga_stripe_density setting controls zebra stripes.")
    index_paths([tmp_path], "animals", base=tmp_path)
    assert search_docs("quagga_stripe_density", "animals", 1)[0]["source_path"] == "zebra.md"
    assert delete_document("animals", "zebra.md")
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM chunks")).scalar() == 0
    assert store_stats() == []


def test_one_broken_file_fails_alone(clean_db, tmp_path: Path) -> None:
    write(tmp_path / "good.md", "# Good\n\nThis one indexes fine.")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (tmp_path / "slides.pptx").write_bytes(b"PK\x03\x04 not supported")
    write(tmp_path / "empty.txt", "   \n")
    report = index_paths(
        [
            tmp_path / "good.md",
            tmp_path / "broken.pdf",
            tmp_path / "slides.pptx",
            tmp_path / "empty.txt",
            tmp_path / "missing.md",
        ],
        "batch",
        base=tmp_path,
    )
    counts = report.counts()
    assert counts["added"] == 1 and counts["failed"] == 4
    reasons = {Path(r.source_path).name: r.reason for r in report.by_status("failed")}
    assert "PDF" in reasons["broken.pdf"]
    assert ".md" in reasons["slides.pptx"] and ".pdf" in reasons["slides.pptx"]  # lists supported types
    assert "no text" in reasons["empty.txt"]
    assert "No such file" in reasons["missing.md"]
    assert [d["source_path"] for d in list_documents("batch")] == ["good.md"]


def test_progress_callback_reports_every_file(clean_db, tmp_path: Path) -> None:
    _corpus(tmp_path)
    seen = []
    index_paths(
        [tmp_path],
        "manual",
        base=tmp_path,
        progress=lambda p: seen.append((p.done, p.total, p.result.status)),
    )
    assert [(d, t) for d, t, _ in seen] == [(1, 2), (2, 2)]


def test_invalid_component_name_is_refused(clean_db, tmp_path: Path) -> None:
    import pytest

    for name in ("../etc", "..", ".", ".hidden"):  # `..` stored uploads beside the database
        with pytest.raises(ValueError, match="Invalid component name"):
            index_paths([tmp_path], name, base=tmp_path)


def test_force_reindexes_unchanged_files(clean_db, tmp_path: Path) -> None:
    _corpus(tmp_path)
    index_paths([tmp_path], "manual", base=tmp_path)
    with clean_db.connect() as conn:
        before = set(conn.execute(sa.text("SELECT id FROM chunks")).scalars())
    report = index_paths([tmp_path], "manual", base=tmp_path, force=True)
    assert report.counts()["updated"] == 2
    with clean_db.connect() as conn:
        after = set(conn.execute(sa.text("SELECT id FROM chunks")).scalars())
    assert after and not (before & after)  # every chunk rebuilt


def test_failed_files_are_named_by_their_source_path(clean_db, tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.pdf").write_bytes(b"not a pdf")
    report = index_paths([tmp_path / "sub" / "bad.pdf"], "manual", base=tmp_path)
    assert [r.source_path for r in report.by_status("failed")] == ["sub/bad.pdf"]


def test_a_file_emptied_after_indexing_fails_and_its_earlier_version_is_kept(
    clean_db, tmp_path: Path
) -> None:
    """The failure says that searches still find the version indexed before."""
    page = tmp_path / "docs" / "page.md"
    write(page, "# Page\n\nThe first version mentions zeppelins.")
    index_paths([tmp_path / "docs"], "kb", base=tmp_path)
    page.write_text("")
    (failed,) = index_paths([tmp_path / "docs"], "kb", base=tmp_path).by_status("failed")
    assert failed.reason.endswith("The version indexed earlier is kept.")
    assert search_docs("zeppelins", component="kb")[0]["source_path"] == "docs/page.md"
    write(tmp_path / "docs" / "new.md", "")
    fresh = index_paths([tmp_path / "docs" / "new.md"], "kb", base=tmp_path).by_status("failed")
    assert "kept" not in fresh[0].reason  # nothing was indexed before


def test_the_write_decides_added_or_updated(clean_db, tmp_path: Path, monkeypatch) -> None:
    """Two ingests of one file at once both said "1 added": each decided from what was
    stored when it started (independent QA, round 5). The write itself now decides: the
    later one says "updated". Simulated by hiding the first write from the second's start."""
    import docsassistant.ingest as ingest

    write(tmp_path / "same.md", "# Same\n\nThe first version of the page.")
    assert index_paths([tmp_path], "race", base=tmp_path).results[0].status == "added"
    write(tmp_path / "same.md", "# Same\n\nThe second version of the page.")
    monkeypatch.setattr(ingest, "known_documents", lambda engine, component: {})
    (result,) = index_paths([tmp_path], "race", base=tmp_path).results
    assert result.status == "updated"
    assert [d["source_path"] for d in list_documents("race")] == ["same.md"]
