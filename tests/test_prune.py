"""`ingest --prune` cannot lose data: every case from issue 7 ends with 0 documents lost."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import write
from typer.testing import CliRunner

from docsassistant.cli import app
from docsassistant.documents import list_documents
from docsassistant.ingest import index_paths
from docsassistant.prune import preview_prune
from docsassistant.ui import uploads
from docsassistant.ui.uploads import Upload

runner = CliRunner()


def _docs(root: Path) -> Path:
    docs = root / "docs"
    write(docs / "guide.md", "# Guide\n\n## Install\n\nRun the installer.")
    write(docs / "api" / "items.md", "# Items\n\nGET /items lists items.")
    write(docs / "api" / "orders.md", "# Orders\n\nGET /orders lists orders.")
    return docs


def _paths(component: str) -> list[str]:
    return [d["source_path"] for d in list_documents(component)]


@pytest.fixture
def no_uploads(clean_db):
    import shutil

    shutil.rmtree(uploads.uploads_root(), ignore_errors=True)
    yield
    shutil.rmtree(uploads.uploads_root(), ignore_errors=True)


def test_prune_removes_only_gone_files_under_the_given_paths(clean_db, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    index_paths([docs], "kb", base=docs)
    (docs / "api" / "orders.md").unlink()
    (docs / "guide.md").unlink()
    # Only docs/api was named: guide.md (outside that path) is not judged by this run.
    report = index_paths([docs / "api"], "kb", base=docs, prune=True)
    assert [r.source_path for r in report.by_status("removed")] == ["api/orders.md"]
    assert _paths("kb") == ["api/items.md", "guide.md"]


def test_wrong_base_fails_every_file_and_prunes_nothing(clean_db, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    index_paths([docs], "kb", base=docs)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    report = index_paths([docs], "kb", base=elsewhere, prune=True)
    assert report.counts()["failed"] == 3 and report.counts()["removed"] == 0
    assert "Nothing is pruned" in report.notes[0]
    assert _paths("kb") == ["api/items.md", "api/orders.md", "guide.md"]


def test_one_failed_file_refuses_the_prune(clean_db, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    index_paths([docs], "kb", base=docs)
    (docs / "api" / "orders.md").unlink()
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    report = index_paths([docs], "kb", base=docs, prune=True)
    assert report.counts()["removed"] == 0 and "1 file(s)" in report.notes[0]
    assert "api/orders.md" in _paths("kb")


def test_another_working_directory_loses_nothing(clean_db, tmp_path: Path, monkeypatch) -> None:
    docs = _docs(tmp_path)
    monkeypatch.chdir(docs)
    index_paths(["."], "kb")  # base = cwd = docs
    monkeypatch.chdir(tmp_path)  # the same files, seen from their parent
    report = index_paths(["docs"], "kb", prune=True)
    assert report.counts()["removed"] == 0
    assert {"api/items.md", "api/orders.md", "guide.md"} <= set(_paths("kb"))
    assert any("another --base" in note for note in report.notes)


def test_cli_prune_never_removes_uploads(no_uploads, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    index_paths([docs], "kb", base=docs)
    uploaded = uploads.save_and_index(
        [Upload(f"note-{i}.md", f"# Note {i}\n\nUploaded note number {i}.".encode()) for i in range(11)], "kb"
    )
    assert uploaded.counts()["added"] == 11
    (docs / "guide.md").unlink()
    result = runner.invoke(app, ["ingest", str(docs), "-c", "kb", "--base", str(docs), "--prune"])
    assert result.exit_code == 0, result.output
    assert "removed kb/guide.md" in result.output
    assert len([p for p in _paths("kb") if p.startswith("note-")]) == 11
    assert _paths("kb").count("guide.md") == 0


def test_dry_run_lists_what_would_go_and_changes_nothing(clean_db, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    index_paths([docs], "kb", base=docs)
    (docs / "guide.md").unlink()
    plan = preview_prune([docs], "kb", base=docs)
    assert list(plan.doomed) == ["guide.md"] and plan.refused is None
    result = runner.invoke(app, ["ingest", str(docs), "-c", "kb", "--base", str(docs), "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "would remove kb/guide.md" in result.output
    assert "guide.md" in _paths("kb")
    result = runner.invoke(app, ["ingest", str(docs), "-c", "kb", "--base", str(tmp_path / "x"), "--dry-run"])
    assert result.exit_code == 1 and "Nothing is pruned" in result.output


def test_origin_is_recorded(no_uploads, tmp_path: Path, engine) -> None:
    docs = _docs(tmp_path)
    index_paths([docs / "guide.md"], "kb", base=docs)
    uploads.save_and_index([Upload("up.md", b"# Up\n\nAn uploaded page.")], "kb")
    with engine.connect() as conn:
        origins = dict(conn.execute(sa.text("SELECT source_path, origin FROM documents")).all())
    assert origins == {"guide.md": "cli", "up.md": "upload"}
