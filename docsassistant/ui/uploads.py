"""Saving uploaded files and indexing them (the logic behind the upload page).

Uploads live under `data_dir/uploads/<component>/<file name>`; the component folder is
the indexing base, so a document's `source_path` is its bare file name. Only the base
name of an upload is used (no path traversal). A batch is first written to a private
staging folder and indexed from there; only files that index successfully move into the
uploads folder, so a broken new version never replaces a good stored file.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from docsassistant.config import Settings, get_settings
from docsassistant.ingest import FileResult, IngestReport, Progress, index_paths, validate_component

_BAD_NAME_CHARS = re.compile(r"[\x00-\x1f\x7f]")
MAX_NAME_CHARS = 200


class UploadRejected(ValueError):
    """An upload that is refused before indexing; the message says why."""


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


def safe_filename(name: str) -> str:
    """The base name of an uploaded file's name; raises UploadRejected for unusable names.

    Both `/` and `\\` count as separators, so `../../evil.md` and `..\\evil.md` become
    `evil.md`. Empty names, `.`/`..`, hidden (dot) files and control characters are refused.
    """
    raw = name or ""
    base = PurePosixPath(raw.replace("\\", "/")).name.strip()
    if not base or set(base) == {"."}:
        raise UploadRejected(f"The file name {raw!r} is not a usable file name.")
    if base.startswith("."):
        raise UploadRejected(
            f"Hidden files ({base}) are not accepted: rename the file without the leading dot."
        )
    if _BAD_NAME_CHARS.search(base):
        raise UploadRejected(f"The file name {raw!r} contains control characters.")
    if len(base) > MAX_NAME_CHARS:
        raise UploadRejected(f"The file name is longer than {MAX_NAME_CHARS} characters.")
    return base


def size_limit_bytes(settings: Settings | None = None) -> int:
    return int((settings or get_settings()).max_upload_mb * 1024 * 1024)


def check_size(name: str, size: int, settings: Settings | None = None) -> None:
    settings = settings or get_settings()
    if size > size_limit_bytes(settings):
        raise UploadRejected(
            f"{name} is {size / 1024 / 1024:.1f} MB; the limit is {settings.max_upload_mb:g} MB per file "
            "(DOCSASSISTANT_MAX_UPLOAD_MB)."
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

    staging = settings.data_dir / "upload-staging" / uuid.uuid4().hex
    staged: dict[str, Path] = {}
    try:
        for upload in uploads:
            try:
                name = safe_filename(upload.name)
                check_size(name, len(upload.data), settings)
                if name in staged:
                    raise UploadRejected(f"{name} appears twice in this batch; only the first copy was used.")
            except UploadRejected as exc:
                finish(FileResult(upload.name or "(no name)", "failed", reason=str(exc)))
                continue
            staging.mkdir(parents=True, exist_ok=True)
            path = staging / name
            path.write_bytes(upload.data)
            staged[name] = path
        if not staged:
            return report

        def indexed(p: Progress) -> None:
            finish(_named(p.result, staging))

        index_paths(list(staged.values()), component, base=staging, settings=settings, progress=indexed)
        target = upload_dir(component, settings)
        target.mkdir(parents=True, exist_ok=True)
        for result in report.results:
            if result.status in ("added", "updated", "unchanged") and result.source_path in staged:
                os.replace(staged[result.source_path], target / result.source_path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


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
        [path], component, base=upload_dir(component, settings), force=True, settings=settings
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


def results_table(report: IngestReport) -> list[dict[str, object]]:
    """Rows for the result table: file, status, chunks, reason."""
    return [
        {"file": r.source_path, "status": r.status, "chunks": r.chunks, "reason": r.reason or ""}
        for r in report.results
    ]


def summary(report: IngestReport) -> str:
    counts = {k: v for k, v in report.counts().items() if v}
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "nothing to do"
