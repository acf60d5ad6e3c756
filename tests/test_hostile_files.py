"""Crafted files from issue 7 are refused with a clear reason, each alone: the ordinary
page in the same batch is indexed. Figures (time, peak RSS): tests/measure_hostile.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import write
from hostile_files import issue_batch, nested_divs, ordinary

from docsassistant.chunking import chunk_document
from docsassistant.documents import list_documents
from docsassistant.ingest import MAX_CHUNKS_PER_DOCUMENT, index_paths
from docsassistant.loaders import MAX_DOCUMENT_CHARS, LoaderError, load_document
from docsassistant.loaders.markdown import code_spans, parse_markdown
from docsassistant.search import search_docs
from docsassistant.ui import uploads
from docsassistant.ui.uploads import Upload

REASONS = {
    "divs-20k.html": "levels deep",
    "divs-200k.html": "levels deep",
    "bomb.docx": "expands to",
    "repeated-heading.md": "characters of text allowed",
    "one-line.md": "characters of text allowed",
}


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> dict[str, Path]:
    return issue_batch(tmp_path_factory.mktemp("hostile"))


def test_issue_batch_is_refused_file_by_file_and_the_ordinary_page_indexed(clean_db, batch) -> None:
    report = index_paths(list(batch.values()), "hostile", base=next(iter(batch.values())).parent)
    results = {r.source_path: r for r in report.results}
    assert results["gearbox.md"].status == "added"
    for name, words in REASONS.items():
        assert results[name].status == "failed", name
        assert words in results[name].reason and name in results[name].reason
    assert [d["source_path"] for d in list_documents("hostile")] == ["gearbox.md"]
    assert search_docs("gearbox oil", "hostile", 1)[0]["source_path"] == "gearbox.md"


def test_the_same_batch_uploaded_fails_alone(clean_db, batch) -> None:
    picked = ["divs-20k.html", "bomb.docx", "one-line.md", "gearbox.md"]
    report = uploads.save_and_index([Upload(n, batch[n].read_bytes()) for n in picked], "hostile-up")
    statuses = {r.source_path: r.status for r in report.results}
    assert statuses == {
        "divs-20k.html": "failed",
        "bomb.docx": "failed",
        "one-line.md": "failed",
        "gearbox.md": "added",
    }


def test_nesting_within_the_limit_is_read(tmp_path: Path) -> None:
    doc = load_document(nested_divs(tmp_path / "ok.html", 150))
    assert doc.sections[0].text == "deep text"
    with pytest.raises(LoaderError, match="levels deep"):
        load_document(nested_divs(tmp_path / "deep.html", 300))


def test_extracted_text_over_the_cap_is_refused(tmp_path: Path) -> None:
    # Under the raw-size precheck (4 bytes a character) but over the character cap.
    path = tmp_path / "big.txt"
    path.write_text("word " * (MAX_DOCUMENT_CHARS // 5 + 10), encoding="utf-8")
    with pytest.raises(LoaderError, match="characters of text"):
        load_document(path)


def test_chunk_cap_refuses_before_embedding(clean_db, tmp_path: Path, monkeypatch) -> None:
    import docsassistant.ingest as ingest

    monkeypatch.setattr(ingest, "MAX_CHUNKS_PER_DOCUMENT", 3)
    page = tmp_path / "long.md"
    page.write_text("\n\n".join(f"## Part {i}\n\nText of part {i}." for i in range(5)), encoding="utf-8")
    report = index_paths([page, ordinary(tmp_path / "gearbox.md")], "cap", base=tmp_path)
    failed = report.by_status("failed")
    assert [r.source_path for r in failed] == ["long.md"]
    assert "would make 5 chunks; the limit is 3" in failed[0].reason
    assert report.counts()["added"] == 1
    assert MAX_CHUNKS_PER_DOCUMENT >= 2000  # the shipped cap keeps a 1 MB page (1,177 chunks) indexable


def test_repeated_heading_merges_into_one_section() -> None:
    text = "## Same\n\nline\n\n" * 5000
    _, sections = parse_markdown(text)
    assert len(sections) == 1 and sections[0].text.count("line") == 5000
    assert len(chunk_document_from(sections)) > 1


def chunk_document_from(sections):
    from docsassistant.loaders import LoadedDocument

    return chunk_document(LoadedDocument("t", "text/markdown", sections))


def test_code_spans_follow_commonmark_and_stay_linear() -> None:
    line = "a `x` b ``y ` z`` c ```unclosed"
    assert [line[s:e] for s, e in code_spans(line)] == ["`x`", "``y ` z``"]
    hostile = "`" + " ``" * 100_000  # unclosed runs of one length, each paired in one pass
    assert len(code_spans(hostile)) == 50_000


def test_a_file_over_the_size_cap_is_refused_unread(clean_db, tmp_path: Path, monkeypatch) -> None:
    import docsassistant.ingest as ingest

    monkeypatch.setattr(ingest, "MAX_FILE_BYTES", 50)
    big = tmp_path / "big.md"
    big.write_text("# Big\n\n" + "word " * 20, encoding="utf-8")
    [result] = index_paths([big], "cap", base=tmp_path).results
    assert result.status == "failed" and "MB per file" in result.reason


def test_names_differing_only_in_bidi_characters_do_not_replace_each_other(clean_db, tmp_path: Path) -> None:
    """Found by an independent QA pass: `a\\u202e.md` and `a.md` were both stored as `a.md`,
    the second silently replacing the first one's chunks. The second now fails alone; a file
    listed twice is indexed once."""
    write(tmp_path / "a.md", "# Plain\n\nThe plain page holds the word marmalade.")
    write(tmp_path / "a\u202e.md", "# Twisted\n\nThe twisted page holds the word quince.")
    report = index_paths([tmp_path, tmp_path / "a.md"], "bidi", base=tmp_path)
    by_status = {r.status: r for r in report.results}
    assert sorted(r.status for r in report.results) == ["added", "failed", "unchanged"]
    assert "rename one of them" in by_status["failed"].reason
    assert "indexed once" in by_status["unchanged"].reason
    with clean_db.connect() as conn:
        rows = (
            conn.execute(sa.text("SELECT source_path FROM documents WHERE component = 'bidi'"))
            .scalars()
            .all()
        )
    assert rows == ["a.md"]
