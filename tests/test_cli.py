"""The `docsassistant` command, run in-process through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write
from typer.testing import CliRunner

from docsassistant.cli import app

runner = CliRunner()


def test_ingest_search_json_documents_and_stats(clean_db, tmp_path: Path) -> None:
    write(
        tmp_path / "docs" / "hnsw.md", "# HNSW\n\n## Query options\n\nSET hnsw.ef_search = 100 raises recall."
    )
    (tmp_path / "docs" / "deck.pptx").write_bytes(b"PK\x03\x04")
    result = runner.invoke(
        app, ["ingest", str(tmp_path / "docs"), "--component", "Demo", "--base", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "1 added" in result.output  # the .pptx is not collected from a folder

    result = runner.invoke(app, ["search", "hnsw.ef_search", "--component", "demo", "-k", "2", "--json"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert hits[0]["source_path"] == "docs/hnsw.md" and hits[0]["section"] == "Query options"

    result = runner.invoke(app, ["stats"])
    assert "demo" in result.output
    result = runner.invoke(app, ["documents", "list", "--json"])
    assert json.loads(result.stdout)[0]["source_path"] == "docs/hnsw.md"
    result = runner.invoke(app, ["documents", "delete", "demo", "docs/hnsw.md"])
    assert result.exit_code == 0 and "Deleted" in result.output


def test_ingest_with_a_failed_file_indexes_the_rest_and_exits_1(clean_db, tmp_path: Path) -> None:
    """A script or CI job must learn that a file failed; the good files are indexed anyway."""
    write(tmp_path / "docs" / "good.md", "# Good\n\nThe good page is indexed.")
    write(tmp_path / "docs" / "empty.md", "")
    result = runner.invoke(app, ["ingest", str(tmp_path / "docs"), "-c", "mixed", "--base", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "1 added" in result.output and "failed docs/empty.md" in result.output
    hits = runner.invoke(app, ["search", "good page", "-c", "mixed", "--json"])
    assert hits.exit_code == 0 and json.loads(hits.stdout)[0]["source_path"] == "docs/good.md"


def test_errors_are_one_clear_line(clean_db) -> None:
    result = runner.invoke(app, ["search", "anything", "--component", "missing"])
    assert result.exit_code == 1
    assert "Unknown component 'missing'" in result.output
    result = runner.invoke(app, ["search", "x", "-k", "99"])
    assert result.exit_code == 1 and "k must be an integer from 1 to 50" in result.output


def test_the_database_stopped_mid_ingest_says_what_to_start(clean_db, tmp_path: Path, monkeypatch) -> None:
    """Found by an independent QA pass: the server killed while an ingest finished its graph
    printed an OperationalError traceback. The command now says what to start and exits 1."""
    import docsassistant.ingest as ingest
    from docsassistant.config import get_settings
    from docsassistant.db import halt_embedded, start_embedded

    real_finish = ingest.finish_graph

    def stop_then_finish(*args, **kwargs):
        halt_embedded(get_settings())
        return real_finish(*args, **kwargs)

    write(tmp_path / "docs" / "page.md", "# Page\n\nA page about Spring AI vector stores.")
    monkeypatch.setattr(ingest, "finish_graph", stop_then_finish)
    try:
        result = runner.invoke(
            app, ["ingest", str(tmp_path / "docs"), "-c", "killed", "--base", str(tmp_path)]
        )
    finally:
        start_embedded(get_settings())
    assert result.exit_code == 1, result.output
    assert "database connection was lost" in result.output and "docsassistant db up" in result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # exited with the message, not an uncaught error


def test_the_database_stopped_between_two_files_stops_the_ingest_once(
    clean_db, tmp_path: Path, monkeypatch
) -> None:
    """The server stopped during an ingest: every remaining file was reported failed with
    the same three-line connection error while the run went on embedding the rest
    (independent QA, round 5). It stops at the first lost write, with one message saying
    what to start; the files written before stay indexed."""
    import sqlalchemy as sa

    import docsassistant.ingest as ingest
    from docsassistant.config import get_settings
    from docsassistant.db import halt_embedded, start_embedded
    from docsassistant.documents import list_documents

    real_write = ingest.write_document
    calls = []

    def stop_before_the_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            halt_embedded(get_settings())
        return real_write(*args, **kwargs)

    for i in range(4):
        write(tmp_path / "docs" / f"p{i}.md", f"# Page {i}\n\nPage number {i} about vector stores.")
    monkeypatch.setattr(ingest, "write_document", stop_before_the_second)
    reported = []
    try:
        with pytest.raises(sa.exc.OperationalError):
            ingest.index_paths(
                [tmp_path / "docs"], "lost", base=tmp_path, progress=lambda p: reported.append(p.result)
            )
        assert [r.status for r in reported] == ["added"]  # no per-file "Database error" for the rest
        start_embedded(get_settings())
        calls.clear()  # the CLI: p0 is unchanged, p1 written, the server stops before p2
        result = runner.invoke(app, ["ingest", str(tmp_path / "docs"), "-c", "lost", "--base", str(tmp_path)])
    finally:
        start_embedded(get_settings())
    assert result.exit_code == 1, result.output
    assert result.output.count("database connection was lost") == 1 and "docsassistant db up" in result.output
    assert [d["source_path"] for d in list_documents("lost")] == ["docs/p0.md", "docs/p1.md"]


def test_db_status(engine) -> None:
    result = runner.invoke(app, ["db", "status"])
    assert result.exit_code == 0 and "PostgreSQL 18" in result.output


def test_db_status_of_a_stopped_server_does_not_start_it(engine) -> None:
    """`db status` after `db down` said "is up": connecting had started the server
    (independent QA, round 5)."""
    from docsassistant.config import get_settings
    from docsassistant.db import halt_embedded, start_embedded

    settings = get_settings()
    halt_embedded(settings)
    try:
        result = runner.invoke(app, ["db", "status"])
        assert result.exit_code == 1, result.output
        assert "is not running" in result.output and "docsassistant db up" in result.output
        assert not (settings.pg_dir / "postmaster.pid").exists()
    finally:
        start_embedded(settings)


def test_db_status_after_a_crash_does_not_start_the_server(engine) -> None:
    """A crashed server leaves its postmaster.pid: `db status` took the file for a running
    server, connected, which started a new one, and said "is up" (QA round 8b)."""
    import subprocess

    from docsassistant.config import get_settings
    from docsassistant.db import halt_embedded, start_embedded

    settings = get_settings()
    halt_embedded(settings)
    child = subprocess.Popen(["true"])
    child.wait()  # reaped: its pid names no process now
    dead_pid = child.pid
    stale = settings.pg_dir / "postmaster.pid"
    try:
        stale.write_text(f"{dead_pid}\n{settings.pg_dir}\n", encoding="utf-8")
        result = runner.invoke(app, ["db", "status"])
        assert result.exit_code == 1, result.output
        assert "is not running" in result.output
    finally:
        stale.unlink(missing_ok=True)
        start_embedded(settings)


@pytest.mark.parametrize(
    ("url", "said"), [("mysql://root:secret@127.0.0.1/x", "a mysql:// URL"), ("garbage", "no scheme")]
)
def test_a_database_url_that_is_not_postgresql_says_what_is_expected(url: str, said: str) -> None:
    """Not a traceback from SQLAlchemy's MySQL dialect; the password is never repeated."""
    from docsassistant.config import Settings
    from docsassistant.db import DatabaseUnavailable, libpq_uri

    with pytest.raises(DatabaseUnavailable, match="must be a PostgreSQL URL") as refused:
        libpq_uri(Settings(DATABASE_URL=url))
    assert said in str(refused.value) and "secret" not in str(refused.value)
    assert libpq_uri(Settings(DATABASE_URL="postgres://u@h/db")) == "postgresql://u@h/db"


def test_a_data_folder_that_cannot_be_made_says_what_to_set(tmp_path: Path) -> None:
    """DOCSASSISTANT_DATA_DIR under a file gave a NotADirectoryError traceback (QA round 7b, F1f)."""
    from docsassistant.config import Settings
    from docsassistant.db import DatabaseUnavailable, embedded_uri

    (tmp_path / "afile").write_text("not a folder")
    with pytest.raises(DatabaseUnavailable, match="cannot be created") as refused:
        embedded_uri(Settings(DOCSASSISTANT_DATA_DIR=tmp_path / "afile" / "data"))
    assert "DOCSASSISTANT_DATA_DIR" in str(refused.value) and "Not a directory" in str(refused.value)


def test_the_embedded_server_failing_to_start_names_the_cause(tmp_path: Path) -> None:
    """pg_ctl's failure buried its cause in a 37-line log dump (QA round 7b, F1h)."""
    from docsassistant.db import server_log_cause

    log = tmp_path / "log"
    log.write_text(
        "2026-12-02 14:20:01 LOG:  starting PostgreSQL 18.6\n"
        '2026-12-02 14:20:01 FATAL:  could not create lock file "postmaster.pid": Permission denied\n'
    )
    assert server_log_cause(log) == (
        '2026-12-02 14:20:01 FATAL:  could not create lock file "postmaster.pid": Permission denied'
    )
    assert server_log_cause(tmp_path / "missing") == ""
    # Only this attempt's lines: the log keeps those of earlier attempts (QA round 7b).
    assert server_log_cause(log, log.stat().st_size) == ""


def test_a_base_that_is_a_file_is_refused(clean_db, tmp_path: Path) -> None:
    """`--base docs/cache.md` stored the file as a document named "." (independent QA,
    round 5); it is refused, saying what to pass, and nothing is stored."""
    write(tmp_path / "docs" / "cache.md", "# Cache\n\nThe cache keeps entries for 300 seconds.")
    page = tmp_path / "docs" / "cache.md"
    result = runner.invoke(app, ["ingest", str(page), "-c", "basefile", "--base", str(page)])
    assert result.exit_code == 1 and "--base must be a folder" in result.output
    listed = runner.invoke(app, ["documents", "list", "--component", "basefile", "--json"])
    assert json.loads(listed.stdout or "[]") == []


def test_a_file_is_never_stored_under_the_name_dot(tmp_path: Path) -> None:
    from docsassistant.loaders import LoaderError
    from docsassistant.sources import source_path_of

    page = tmp_path / "cache.md"
    page.write_text("# Cache\n")
    with pytest.raises(LoaderError, match="is the base itself"):
        source_path_of(page, page)
    assert source_path_of(page, tmp_path) == "cache.md"


def test_train_injection_needs_an_explicit_out() -> None:
    """Run from a checkout, a default `--out` replaced the shipped classifier weights
    unasked (QA round 6a, D13): the command refuses before it reads anything."""
    shipped = Path("docsassistant/agent/injection/classifier.json")
    before = shipped.stat().st_mtime_ns
    result = runner.invoke(app, ["train-injection"])
    assert result.exit_code == 2 and "--out" in result.output
    assert shipped.stat().st_mtime_ns == before


def _unblock_fifo_later(fifo: Path, after_s: float) -> None:
    """Open the FIFO's write end after a while, so a reader stuck on it (a bug) returns and
    the test fails instead of hanging the suite."""
    import contextlib
    import os
    import threading
    import time

    def opener() -> None:
        time.sleep(after_s)
        with contextlib.suppress(OSError):  # no reader waiting: nothing to unblock
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=opener, daemon=True).start()


def test_a_fifo_in_a_folder_is_listed_once_as_skipped(clean_db, tmp_path: Path, monkeypatch) -> None:
    """QA: a FIFO in an indexed folder was listed as failed with its path twice on the line
    ("failed /…/pipe.md: /…/pipe.md is a FIFO … It is skipped."), twice when also named,
    and made the run exit 1. It is listed once, as skipped, by its source path, never opened."""
    import os
    import time

    write(tmp_path / "docs" / "good.md", "# Good\n\nThe good page is about sprockets and gears.")
    os.mkfifo(tmp_path / "docs" / "pipe.md")
    _unblock_fifo_later(tmp_path / "docs" / "pipe.md", 15)
    monkeypatch.chdir(tmp_path)  # relative paths: the lines stay short enough not to wrap
    start = time.monotonic()
    result = runner.invoke(app, ["ingest", "docs", "-c", "fifo"])
    assert time.monotonic() - start < 10, "the FIFO was opened"
    assert result.exit_code == 0, result.output  # a skipped FIFO is not a failed file
    assert "1 added" in result.output and "1 skipped" in result.output and "0 failed" in result.output
    assert result.output.count("pipe.md") == 1, result.output
    assert "skipped docs/pipe.md: A FIFO (named pipe), not a regular file" in result.output

    # Named as well as found in its folder: still one line, and failed (it was asked for).
    named = runner.invoke(app, ["ingest", "docs", "docs/pipe.md", "-c", "fifo"])
    assert named.exit_code == 1, named.output
    assert named.output.count("pipe.md") == 1, named.output
    assert "failed docs/pipe.md: A FIFO (named pipe)" in named.output
