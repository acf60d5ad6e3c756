"""Saving uploaded files and indexing them (the logic behind the upload page).

Uploads live under `data_dir/uploads/<component>/<file name>`; the component folder is
the indexing base, so a document's `source_path` is its bare file name. Only the base
name of an upload is used (no path traversal). A batch is first written to a private
staging folder and indexed from there; only files that index successfully move into the
uploads folder, so a broken new version never replaces a good stored file. A batch owns
its staging folder through a lock file beside it; what a killed process left behind is
removed at the next upload or page start, whatever its age.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import FileResult, IngestReport, Progress, index_paths, validate_component
from docsassistant.inputs import strip_controls
from docsassistant.ui.upload_names import UploadRejected, safe_filename


@dataclass
class Upload:
    """One uploaded file: the name the browser sent and its bytes."""

    name: str
    data: bytes

    @classmethod
    def from_streamlit(cls, uploaded: object) -> Upload:
        return cls(getattr(uploaded, "name", ""), uploaded.getvalue())  # type: ignore[attr-defined]


def uploads_root(settings: Settings | None = None) -> Path:
    return (settings or get_settings()).data_dir / "uploads"


def upload_dir(component: str, settings: Settings | None = None) -> Path:
    """Where a component's uploads are stored (and the base its source paths are relative to)."""
    return uploads_root(settings) / validate_component(component)


def stored_file(component: str, source_path: str, settings: Settings | None = None) -> Path | None:
    """The stored upload behind a document, if it was uploaded here and is still on disk."""
    folder = upload_dir(component, settings).resolve()
    path = (folder / source_path).resolve()
    if not path.is_relative_to(folder) or not path.is_file():
        return None
    return path


def size_limit_bytes(settings: Settings | None = None) -> int:
    return int((settings or get_settings()).max_upload_mb * 1024 * 1024)


def check_size(name: str, size: int, settings: Settings | None = None) -> None:
    settings = settings or get_settings()
    if size > size_limit_bytes(settings):
        raise UploadRejected(
            f"{name} is {size / 1024 / 1024:.1f} MB; the limit is {settings.max_upload_mb:g} MB per file "
            "(DOCSASSISTANT_MAX_UPLOAD_MB), so it was not indexed. Split it into smaller files, or "
            "raise DOCSASSISTANT_MAX_UPLOAD_MB."
        )
    if size == 0:
        raise UploadRejected(f"{name} is empty.")


def save_and_index(
    uploads: Iterable[Upload],
    component: str,
    *,
    settings: Settings | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> IngestReport:
    """Save a batch of uploads and index them into `component`; one bad file fails alone.

    Returns an IngestReport whose results name files by their stored name, in upload
    order: refused files (bad name, too big, duplicate in the batch) first as they are
    found, then what `index_paths` reports. `progress` is called after each file.
    Raises ValueError for an invalid component name (nothing is saved then).
    """
    settings = settings or get_settings()
    component = validate_component(component)
    uploads = list(uploads)
    report = IngestReport(component)
    total = len(uploads)

    def finish(result: FileResult) -> None:
        report.results.append(result)
        if progress:
            progress(Progress(len(report.results), total, result))

    root = staging_root(settings)
    sweep_stale_staging(root)
    staged: dict[str, Path] = {}
    with staging_batch(root) as staging:
        for upload in uploads:
            shown = strip_controls(upload.name or "") or "(no name)"
            try:
                name = safe_filename(upload.name)
                check_size(name, len(upload.data), settings)
                if name in staged:
                    raise UploadRejected(f"{name} appears twice in this batch; only the first copy was used.")
                staging.mkdir(parents=True, exist_ok=True)
                path = staging / name
                path.write_bytes(upload.data)
            except UploadRejected as exc:
                finish(FileResult(shown, "failed", reason=str(exc)))
                continue
            except OSError as exc:  # e.g. a full disk: this file fails, the batch goes on
                finish(FileResult(shown, "failed", reason=f"Could not be saved: {exc.strerror or exc}."))
                continue
            staged[name] = path
        if not staged:
            return report

        target = upload_dir(component, settings)

        def indexed(p: Progress) -> None:
            result = _named(p.result, staging)
            if result.status in ("added", "updated", "unchanged") and result.source_path in staged:
                keep(staged[result.source_path], target, result)
            finish(result)

        index_paths(
            list(staged.values()),
            component,
            base=staging,
            origin="upload",
            settings=settings,
            progress=indexed,
        )
    return report


def keep(staged: Path, target: Path, result: FileResult) -> None:
    """Move a file whose document was just committed into the uploads folder. Done per
    file, right after its commit, so a killed process leaves no indexed upload without
    its stored file (and no stored file without its document)."""
    try:
        target.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target / result.source_path)
    except OSError as exc:
        result.reason = f"Indexed, but the file could not be stored for re-indexing: {exc}."


def staging_root(settings: Settings | None = None) -> Path:
    return (settings or get_settings()).data_dir / "upload-staging"


@contextlib.contextmanager
def staging_batch(root: Path) -> Iterator[Path]:
    """A new staging folder (created by the caller when it stages a file), owned while the
    `with` lasts and removed after it.

    Ownership is an exclusive flock on `<folder>.lock`, taken before the folder exists:
    the kernel drops it when the process dies, however it dies, and flock locks taken
    through separate opens conflict also within one process, so another session's batch
    in this process is seen as owned too.
    """
    root.mkdir(parents=True, exist_ok=True)
    name = uuid.uuid4().hex
    lock_path = root / f"{name}.lock"
    fd = _own(lock_path)
    try:
        yield root / name
    finally:
        shutil.rmtree(root / name, ignore_errors=True)
        lock_path.unlink(missing_ok=True)
        os.close(fd)  # released last: a sweep never sees the folder without its owner


def _own(lock_path: Path) -> int:
    """Open and lock `lock_path`, waiting; retried when a sweep removed the file between our
    open and our lock (the lock would then be on a file nobody else can find)."""
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _still_named(fd, lock_path):
            return fd
        os.close(fd)


def _still_named(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def sweep_stale_staging(root: Path) -> list[str]:
    """Remove the staging folders (and lock files) of batches no live process owns: those of
    a process killed mid-upload, of any age. A batch still running, in this process or
    another, holds its lock and is left alone. Returns the names removed."""
    try:
        entries = list(root.iterdir())
    except OSError:  # no staging folder yet (or unreadable): nothing to sweep
        return []
    names = sorted({e.name.removesuffix(".lock") for e in entries if e.name.endswith(".lock") or e.is_dir()})
    removed = []
    for name in names:
        lock_path = root / f"{name}.lock"
        try:
            # Created when missing: a folder left by an older version has no lock file.
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live batch
            if not _still_named(fd, lock_path):
                continue  # another sweep removed it meanwhile (a new owner may have taken the name)
            shutil.rmtree(root / name, ignore_errors=True)
            lock_path.unlink(missing_ok=True)
            removed.append(name)
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def _named(result: FileResult, folder: Path) -> FileResult:
    """index_paths names failed files by their full path, and some loader errors quote it:
    show the stored name instead (the staging folder means nothing to the user)."""
    prefix = f"{folder}/"
    path = Path(result.source_path)
    name = path.name if path.is_absolute() and path.parent == folder else result.source_path
    reason = result.reason.replace(prefix, "") if result.reason else result.reason
    return FileResult(name, result.status, result.chunks, reason)


def reindex_document(component: str, source_path: str, *, settings: Settings | None = None) -> FileResult:
    """Rebuild a document's chunks from its stored upload (e.g. after a loader or chunking change).

    `force=True` makes the indexer rebuild it although its content hash is unchanged; the
    old chunks are replaced in one transaction. Documents indexed from elsewhere (the CLI)
    have no stored upload and are reported as failed with the reason.
    """
    settings = settings or get_settings()
    path = stored_file(component, source_path, settings)
    if path is None:
        return FileResult(
            source_path,
            "failed",
            reason="The original file is not among this app's uploads (it was indexed from elsewhere, "
            "e.g. with `docsassistant ingest`): index it again from there.",
        )
    report = index_paths(
        [path],
        component,
        base=upload_dir(component, settings),
        force=True,
        origin="upload",
        settings=settings,
    )
    if not report.results:
        return FileResult(source_path, "failed", reason="Nothing was indexed.")
    return _named(report.results[0], path.parent)


def delete_upload(component: str, source_path: str, *, settings: Settings | None = None) -> bool:
    """Delete a document from the index and its stored upload, if any. True if it was indexed."""
    from docsassistant.documents import delete_document

    settings = settings or get_settings()
    deleted = delete_document(component, source_path, settings=settings)
    path = stored_file(component, source_path, settings)
    if path is not None:
        path.unlink(missing_ok=True)
    return deleted
