"""Uploads: saving (base names only, size limit) and indexing a batch where one bad file
fails alone; the upload page itself through AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from docsassistant.config import get_settings
from docsassistant.documents import list_documents
from docsassistant.search import search_docs
from docsassistant.ui import uploads
from docsassistant.ui.uploads import Upload, UploadRejected

ROOT = Path(__file__).resolve().parent.parent
PAGE = "pages/1_Upload_and_index.py"
GOOD = b"# Sprockets\n\n## Sprocket sizes\n\nSprockets come in three sizes: small, medium and large.\n"


pytestmark = pytest.mark.usefixtures("fresh_streamlit_caches")


@pytest.fixture
def uploads_dir(clean_db):
    """An empty uploads folder, and no batch reports, for a clean store."""
    import shutil

    root = uploads.uploads_root()
    reports = root.parent / "upload-reports"  # a report left unseen would show on the next page
    for folder in (root, reports):
        shutil.rmtree(folder, ignore_errors=True)
    yield root
    for folder in (root, reports):
        shutil.rmtree(folder, ignore_errors=True)


def wait_for_report(at: AppTest, timeout_s: float = 120) -> str:
    """Rerun the page until it shows a batch report (the batch runs in a worker); its text."""
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        assert not at.exception, at.exception
        texts = [e.value for e in [*at.success, *at.warning] if e.value.startswith("Last upload into")]
        if texts or time.monotonic() > deadline:
            assert texts, "no batch report was shown"
            return texts[0]
        time.sleep(0.3)
        at.run()


def by_name(report) -> dict[str, uploads.FileResult]:
    return {r.source_path: r for r in report.results}


def test_batch_with_broken_and_unsupported_files(uploads_dir):
    seen = []
    report = uploads.save_and_index(
        [
            Upload("broken.pdf", b"%PDF-1.7 this is not really a pdf \x00\x01\x02"),
            Upload("slides.pptx", b"PK\x03\x04 not supported"),
            Upload("sprockets.md", GOOD),
        ],
        "parts",
        progress=seen.append,
    )
    results = by_name(report)
    assert results["sprockets.md"].status == "added" and results["sprockets.md"].chunks >= 1
    assert results["broken.pdf"].status == "failed" and "broken.pdf" in results["broken.pdf"].reason
    assert (
        results["slides.pptx"].status == "failed" and "Unsupported file type" in results["slides.pptx"].reason
    )
    assert [p.done for p in seen] == [1, 2, 3] and {p.total for p in seen} == {3}
    # Only the file that indexed is kept; its source path is its bare name.
    assert sorted(p.name for p in (uploads_dir / "parts").iterdir()) == ["sprockets.md"]
    assert [d["source_path"] for d in list_documents("parts")] == ["sprockets.md"]
    assert search_docs("sprocket sizes", "parts")[0]["source_path"] == "sprockets.md"
    assert not any((uploads_dir.parent / "upload-staging").glob("*"))


def test_path_traversal_names_keep_only_the_base_name(uploads_dir):
    report = uploads.save_and_index([Upload("../../evil.md", GOOD)], "parts")
    assert by_name(report)["evil.md"].status == "added"
    assert (uploads_dir / "parts" / "evil.md").is_file()
    assert not (uploads_dir.parent.parent / "evil.md").exists()
    assert not (uploads_dir / "evil.md").exists()
    assert uploads.safe_filename("..\\..\\windows.md") == "windows.md"
    assert uploads.safe_filename("/etc/passwd.md") == "passwd.md"
    for bad in ("", ".", "..", "../..", "/", ".hidden.md", "\u202e\x00"):
        with pytest.raises(UploadRejected):
            uploads.safe_filename(bad)


def test_names_lose_control_and_bidi_characters_and_fit_255_bytes():
    assert uploads.safe_filename("bad\x00na\tme.md") == "badname.md"
    # U+202E would show "report\u202egnp.md" as "reportdm.png".
    assert uploads.safe_filename("report\u202egnp.md") == "reportgnp.md"
    long_name = "文" * 90 + ".md"  # 273 UTF-8 bytes
    short = uploads.safe_filename(long_name)
    assert short.endswith(".md") and len(short.encode()) <= 255 and short == "文" * 84 + ".md"
    assert uploads.safe_filename("a" * 300) == "a" * 255


def test_a_90_cjk_character_name_uploads_and_a_bad_name_fails_alone(uploads_dir):
    long_name = "説明書" * 30 + ".md"  # 90 CJK characters, 273 bytes
    report = uploads.save_and_index(
        [Upload(long_name, GOOD), Upload("..", GOOD), Upload("ok.md", GOOD.replace(b"Sprocket", b"Gear"))],
        "parts",
    )
    statuses = sorted(r.status for r in report.results)
    assert statuses == ["added", "added", "failed"]
    stored = sorted(p.name for p in (uploads_dir / "parts").iterdir())
    assert len(stored) == 2 and all(len(n.encode()) <= 255 for n in stored)
    assert any(n.startswith("説明書") and n.endswith(".md") for n in stored)


def test_oversize_and_bad_names_fail_alone(uploads_dir, monkeypatch):
    monkeypatch.setenv("DOCSASSISTANT_MAX_UPLOAD_MB", "0.001")  # about 1 KB
    get_settings.cache_clear()
    report = uploads.save_and_index(
        [Upload("huge.md", b"# Huge\n\n" + b"word " * 1000), Upload("..", GOOD), Upload("ok.md", GOOD)],
        "parts",
    )
    results = by_name(report)
    assert results["huge.md"].status == "failed" and "limit is 0.001 MB" in results["huge.md"].reason
    assert results[".."].status == "failed" and "not a usable file name" in results[".."].reason
    assert results["ok.md"].status == "added"
    assert not (uploads_dir / "parts" / "huge.md").exists()


def test_reupload_updates_and_a_broken_new_version_keeps_the_old_file(uploads_dir):
    uploads.save_and_index([Upload("sprockets.md", GOOD)], "parts")
    again = uploads.save_and_index([Upload("sprockets.md", GOOD)], "parts")
    assert by_name(again)["sprockets.md"].status == "unchanged"
    changed = uploads.save_and_index([Upload("sprockets.md", GOOD + b"\nThey are made of steel.\n")], "parts")
    assert by_name(changed)["sprockets.md"].status == "updated"
    broken = uploads.save_and_index([Upload("sprockets.md", b"\x00\x01binary")], "parts")
    assert by_name(broken)["sprockets.md"].status == "failed"
    assert b"steel" in (uploads_dir / "parts" / "sprockets.md").read_bytes()


def test_invalid_component_is_refused_before_saving(uploads_dir):
    with pytest.raises(ValueError, match="Invalid component"):
        uploads.save_and_index([Upload("a.md", GOOD)], "../etc")
    assert not uploads_dir.exists() or not any(uploads_dir.iterdir())


def test_reindex_and_delete(uploads_dir):
    uploads.save_and_index([Upload("sprockets.md", GOOD)], "parts")
    result = uploads.reindex_document("parts", "sprockets.md")
    assert result.status == "updated" and result.chunks >= 1
    assert uploads.reindex_document("parts", "../../etc/passwd").status == "failed"
    assert uploads.delete_upload("parts", "sprockets.md") is True
    assert list_documents("parts") == []
    assert not (uploads_dir / "parts" / "sprockets.md").exists()
    with pytest.raises(Exception):  # noqa: B017 - the component no longer exists
        search_docs("sprocket sizes", "parts")


def test_page_lists_documents_and_deletes(uploads_dir):
    uploads.save_and_index(
        [Upload("sprockets.md", GOOD), Upload("gears.md", GOOD.replace(b"Sprocket", b"Gear"))], "parts"
    )
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert any(m.value.startswith("**parts** · 2 document(s)") for m in at.markdown)
    table = at.dataframe[0].value
    assert sorted(table["document"]) == ["gears.md", "sprockets.md"]
    assert all(table["chunks"] >= 1) and all(table["uploaded"])
    at.multiselect(key="doc_selection").select(("parts", "gears.md")).run()
    at.button(key="delete-confirm").click().run()
    assert not at.exception, at.exception
    assert [d["source_path"] for d in list_documents("parts")] == ["sprockets.md"]
    assert any("Deleted 1 document" in s.value for s in at.success)


def test_page_uploads_a_batch(uploads_dir):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    assert "Nothing is indexed yet." in [c.value for c in at.caption]
    # AppTest cannot type a new option into the selectbox (the browser test does): make one.
    uploads.save_and_index([Upload("gears.md", GOOD.replace(b"Sprocket", b"Gear"))], "parts")
    at.run()
    # The widgets sit in a form: their values reach the script with the submit click.
    at.selectbox(key="upload_component").select("parts")
    at.file_uploader[0].set_value(
        [("sprockets.md", GOOD, "text/markdown"), ("slides.pptx", b"PK..", "application/octet-stream")]
    )
    [upload] = [b for b in at.button if b.label == "Upload and index"]
    upload.click().run()
    assert "1 added, 1 failed" in wait_for_report(at)
    results = at.dataframe[0].value
    assert dict(zip(results["file"], results["status"], strict=True)) == {
        "sprockets.md": "added",
        "slides.pptx": "failed",
    }
    assert "Unsupported file type" in " ".join(results["reason"])
    assert [d["source_path"] for d in list_documents("parts")] == ["gears.md", "sprockets.md"]
    # The form's clear_on_submit empties the uploader in the browser (a frontend action that
    # AppTest does not replay): tests/test_browser_e2e.py checks it.


STALL = """
import time
from docsassistant.ui.uploads import Upload, save_and_index

def stall(progress):  # good.md is staged when the refused '..' is reported
    print("staged", flush=True)
    time.sleep(600)

save_and_index([Upload("good.md", b"# Good\\n\\nText.\\n"), Upload("..", b"x")], "parts", progress=stall)
"""


def _killed_upload(data_dir: Path) -> Path:
    """Run an upload in a child process, kill -9 it once a file is staged; its staging folder."""
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "DOCSASSISTANT_DATA_DIR": str(data_dir)}
    child = subprocess.Popen([sys.executable, "-c", STALL], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "staged"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    [left] = [p for p in (data_dir / "upload-staging").iterdir() if p.is_dir()]
    assert (left / "good.md").is_file()  # fresh: a minute old at most
    return left


def test_a_killed_uploads_staged_files_go_at_the_next_upload_whatever_their_age(tmp_path: Path) -> None:
    """QA: a killed upload's staged files stayed until an upload found them an hour old."""
    from docsassistant.config import Settings

    data_dir = tmp_path / "data"
    left = _killed_upload(data_dir)
    # A batch of refused files only: it sweeps, saves nothing and never needs the store.
    report = uploads.save_and_index(
        [Upload("..", GOOD)], "parts", settings=Settings(DOCSASSISTANT_DATA_DIR=data_dir)
    )
    assert [r.status for r in report.results] == ["failed"]
    assert not left.exists()
    assert list((data_dir / "upload-staging").iterdir()) == []  # the lock files went too


def test_a_killed_uploads_staged_files_go_when_the_page_opens(uploads_dir) -> None:
    left = _killed_upload(get_settings().data_dir)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert not left.exists()


def test_a_batch_running_in_this_process_is_not_swept(tmp_path: Path) -> None:
    """Another session's upload in the same process owns its staging folder while it runs."""
    import threading

    from docsassistant.config import Settings

    settings = Settings(DOCSASSISTANT_DATA_DIR=tmp_path / "data")
    root = uploads.staging_root(settings)
    staged, release = threading.Event(), threading.Event()

    class Stop(Exception):
        pass

    def hold(progress) -> None:
        staged.set()
        release.wait(30)
        raise Stop  # ends the batch before it needs the store

    errors: list[BaseException] = []

    def first_session() -> None:
        try:
            uploads.save_and_index(
                [Upload("good.md", GOOD), Upload("..", GOOD)], "parts", settings=settings, progress=hold
            )
        except Stop as exc:
            errors.append(exc)

    thread = threading.Thread(target=first_session)
    thread.start()
    try:
        assert staged.wait(30)
        [running] = [p for p in root.iterdir() if p.is_dir()]
        assert uploads.sweep_stale_staging(root) == []
        uploads.save_and_index([Upload("..", GOOD)], "parts", settings=settings)  # a second session
        assert (running / "good.md").is_file()
    finally:
        release.set()
        thread.join(30)
    assert len(errors) == 1 and list(root.iterdir()) == []  # the batch cleaned up after itself


def test_a_file_over_the_apps_limit_reaches_the_page_and_gets_a_row(uploads_dir, monkeypatch) -> None:
    """QA: a file over the limit had no row in the batch report. The file picker was given
    the app's own limit, so the browser refused the file unsent, and the form's
    clear-on-submit then removed even the picker's mark. The picker now takes every file
    Streamlit's server accepts (server.maxUploadSize); the page refuses one over
    DOCSASSISTANT_MAX_UPLOAD_MB itself, in a row saying why and what to do. Files over the
    server's limit never reach the app: the page says so under the report."""
    import streamlit as st

    monkeypatch.setenv("DOCSASSISTANT_MAX_UPLOAD_MB", "1")
    get_settings.cache_clear()
    try:
        uploads.save_and_index([Upload("gears.md", GOOD.replace(b"Sprocket", b"Gear"))], "parts")
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.switch_page(PAGE).run()
        server_mb = st.get_option("server.maxUploadSize")
        assert server_mb > 1 and at.file_uploader[0].proto.max_upload_size_mb == server_mb
        big = b"# Big\n\n" + b"word " * (300 * 1024)  # 1.5 MB
        at.selectbox(key="upload_component").select("parts")
        at.file_uploader[0].set_value(
            [("big.md", big, "text/markdown"), ("sprockets.md", GOOD, "text/markdown")]
        )
        [upload] = [b for b in at.button if b.label == "Upload and index"]
        upload.click().run()
        wait_for_report(at)
        rows = at.dataframe[0].value
        status = dict(zip(rows["file"], rows["status"], strict=True))
        reason = dict(zip(rows["file"], rows["reason"], strict=True))
        assert status == {"big.md": "failed", "sprockets.md": "added"}
        assert "big.md is 1.5 MB; the limit is 1 MB per file" in reason["big.md"]
        assert "not indexed" in reason["big.md"] and "DOCSASSISTANT_MAX_UPLOAD_MB" in reason["big.md"]
        notes = " ".join(c.value for c in at.caption)
        assert f"larger than {server_mb} MB" in notes and "server.maxUploadSize" in notes
    finally:
        get_settings.cache_clear()


def _doc(name: str) -> bytes:
    return GOOD.replace(b"Sprocket", name.encode())


@pytest.fixture
def gated_chunking(monkeypatch):
    """Indexing waits at each file's chunking until the test opens the gate (20 s at most,
    so a page script blocked in it still ends): a batch that is surely still running."""
    import threading

    from docsassistant import ingest

    gate = threading.Event()
    real = ingest.chunk_document

    def held(*args, **kwargs):
        gate.wait(20)
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest, "chunk_document", held)
    yield gate
    gate.set()


def _start_page_upload(component: str, files: list[tuple[str, bytes, str]]) -> AppTest:
    """Open the upload page, pick `component`, choose `files`, press the button. The click's
    run may time out (10 s): AppTest then stops the script as Streamlit does when the
    session ends (request_stop, then the next st.* call raises StopException)."""
    import contextlib

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(PAGE).run()
    at.selectbox(key="upload_component").select(component)
    at.file_uploader[0].set_value(files)
    [upload] = [b for b in at.button if b.label == "Upload and index"]
    with contextlib.suppress(RuntimeError):  # "AppTest script run timed out"
        upload.click().run(timeout=10)
    return at


def _wait_indexed(component: str, count: int, timeout_s: float = 120) -> list[str]:
    import time

    deadline = time.monotonic() + timeout_s
    while (
        (names := [d["source_path"] for d in list_documents(component)])
        and len(names) < count
        and time.monotonic() < deadline
    ):
        time.sleep(0.3)
    return names


def test_a_batch_goes_on_after_its_page_is_stopped_and_the_next_page_shows_its_report(
    uploads_dir, gated_chunking, monkeypatch
):
    """QA: closing the tab (or a rerun: a click elsewhere) mid-batch stopped the script at its
    next progress-bar update; the files not yet indexed never were, and nobody was told. The
    batch now runs in a worker; a page opened later shows the report it missed."""
    uploads.save_and_index([Upload("gears.md", _doc("Gear"))], "parts")  # makes the component
    at = _start_page_upload(
        "parts",
        [
            ("alpha.md", _doc("Alpha"), "text/markdown"),
            ("beta.md", _doc("Beta"), "text/markdown"),
            ("gamma.md", _doc("Gamma"), "text/markdown"),
            ("slides.pptx", b"PK..", "application/octet-stream"),
        ],
    )
    assert not at.exception, at.exception
    at.run()  # a rerun while the batch runs (what a click elsewhere on the page causes)
    assert not at.exception, at.exception
    assert at.get("progress"), "the running batch shows its progress"
    del at  # the session is gone: nothing watches the batch any more
    monkeypatch.setattr("docsassistant.ui.upload_jobs.UNWATCHED_AFTER_S", 0.0)
    gated_chunking.set()
    names = _wait_indexed("parts", 4)
    assert sorted(names) == ["alpha.md", "beta.md", "gamma.md", "gears.md"]

    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    fresh.switch_page(PAGE).run()
    text = wait_for_report(fresh)
    assert "3 added, 1 failed" in text and "Finished 20" in text, text
    rows = fresh.dataframe[0].value
    assert dict(zip(rows["file"], rows["status"], strict=True)) == {
        "alpha.md": "added",
        "beta.md": "added",
        "gamma.md": "added",
        "slides.pptx": "failed",
    }
    assert sorted(p.name for p in (uploads_dir / "parts").iterdir()) == [
        "alpha.md",
        "beta.md",
        "gamma.md",
        "gears.md",
    ]
    assert not any(p.is_dir() for p in uploads.staging_root().iterdir())
    [dismiss] = [b for b in fresh.button if b.label == "Dismiss"]
    dismiss.click().run()
    assert not [w for w in fresh.warning if w.value.startswith("Last upload into")]
    again = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    again.switch_page(PAGE).run()
    assert not [w for w in again.warning if w.value.startswith("Last upload into")]


def test_two_sessions_batches_run_side_by_side_and_do_not_mix(uploads_dir, gated_chunking):
    uploads.save_and_index([Upload("gears.md", _doc("Gear"))], "parts")
    uploads.save_and_index([Upload("cogs.md", _doc("Cog"))], "tools")
    first = _start_page_upload("parts", [("alpha.md", _doc("Alpha"), "text/markdown")])
    second = _start_page_upload("tools", [("beta.md", _doc("Beta"), "text/markdown")])
    gated_chunking.set()
    assert "1 added" in wait_for_report(first) and "1 added" in wait_for_report(second)
    assert list(first.dataframe[0].value["file"]) == ["alpha.md"]
    assert list(second.dataframe[0].value["file"]) == ["beta.md"]
    assert sorted(d["source_path"] for d in list_documents("parts")) == ["alpha.md", "gears.md"]
    assert sorted(d["source_path"] for d in list_documents("tools")) == ["beta.md", "cogs.md"]
    # Both reports reached their own pages: a third visitor is shown neither.
    third = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    third.switch_page(PAGE).run()
    assert not [w for w in [*third.success, *third.warning] if w.value.startswith("Last upload into")]
