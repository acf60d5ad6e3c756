"""kill -9 in the middle of writing a document (CLI ingest, and an upload) leaves nothing
half-written: each document is committed whole or not at all, an upload's stored file
exists exactly for its committed document, and the next run completes the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import sqlalchemy as sa

from docsassistant.config import get_settings
from docsassistant.ingest import index_paths
from docsassistant.ui import uploads
from docsassistant.ui.uploads import Upload

FILES = 10
# Many short sections: chunks embed fast but each document takes a while to write, so
# the test can catch a write in flight.
PAGE = "# Page {n}\n\n" + "\n\n".join(
    f"## Topic {{n}}-{i}\n\nShort note {i} of page {{n}}." for i in range(24)
)

INGEST = "from docsassistant.ingest import index_paths; import sys; from pathlib import Path; p = Path(sys.argv[1]); index_paths([p], 'killed', base=p)"
UPLOAD = (
    "from docsassistant.ui.uploads import Upload, save_and_index; import sys; from pathlib import Path; "
    "save_and_index([Upload(f.name, f.read_bytes()) for f in sorted(Path(sys.argv[1]).iterdir())], 'killed')"
)
IN_FLIGHT = sa.text(
    "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
    "AND state IN ('active', 'idle in transaction') "
    "AND (query LIKE 'COPY chunks%' OR query LIKE '%INSERT INTO documents%')"
)


def _pages(folder: Path) -> Path:
    folder.mkdir()
    for n in range(FILES):
        (folder / f"page-{n:02d}.md").write_text(PAGE.format(n=n), encoding="utf-8")
    return folder


def _kill_mid_write(engine, code: str, folder: Path) -> bool:
    """Run `code` in a child; SIGKILL it while a document write is in flight. True if caught."""
    child = subprocess.Popen([sys.executable, "-c", code, str(folder)], env={**os.environ})
    caught = False
    deadline = time.monotonic() + 240
    try:
        with engine.connect() as conn:
            while child.poll() is None and time.monotonic() < deadline:
                if conn.execute(IN_FLIGHT).scalar():
                    os.kill(child.pid, signal.SIGKILL)
                    caught = True
                    break
                conn.rollback()
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)
    return caught


def _consistent(engine) -> list[str]:
    """Source paths of 'killed', after checking every document holds exactly its chunks."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT d.source_path, d.chunk_count, count(c.id) AS n FROM documents d "
                "LEFT JOIN chunks c ON c.document_id = d.id WHERE d.component = 'killed' "
                "GROUP BY d.id ORDER BY d.source_path"
            )
        ).all()
    assert all(r.chunk_count == r.n > 0 for r in rows), [tuple(r) for r in rows if r.n != r.chunk_count]
    return [r.source_path for r in rows]


def test_kill_9_during_cli_ingest_leaves_whole_documents(clean_db, tmp_path: Path) -> None:
    folder = _pages(tmp_path / "docs")
    assert _kill_mid_write(clean_db, INGEST, folder), "the child finished before a write was caught"
    time.sleep(0.5)  # PostgreSQL notices the dead client and rolls its transaction back
    committed = _consistent(clean_db)
    assert len(committed) < FILES
    report = index_paths([folder], "killed", base=folder)
    assert report.counts()["failed"] == 0 and report.counts()["unchanged"] == len(committed)
    assert len(_consistent(clean_db)) == FILES


def test_kill_9_during_an_upload_keeps_files_and_documents_in_step(clean_db, tmp_path: Path) -> None:
    import shutil

    shutil.rmtree(uploads.uploads_root(), ignore_errors=True)
    folder = _pages(tmp_path / "up")
    assert _kill_mid_write(clean_db, UPLOAD, folder), "the child finished before a write was caught"
    time.sleep(0.5)
    committed = _consistent(clean_db)
    stored_dir = uploads.upload_dir("killed")
    stored = sorted(p.name for p in stored_dir.iterdir()) if stored_dir.is_dir() else []
    assert stored == committed and len(committed) < FILES
    # The killed upload's staging folder is left behind; the next upload sweeps it at once
    # (no process owns it), however fresh it is.
    staging = get_settings().data_dir / "upload-staging"
    assert list(staging.iterdir())
    report = uploads.save_and_index(
        [Upload(p.name, p.read_bytes()) for p in sorted(folder.iterdir())], "killed"
    )
    assert report.counts()["failed"] == 0
    assert len(_consistent(clean_db)) == FILES == len(list(stored_dir.iterdir()))
    assert not any(staging.iterdir())
