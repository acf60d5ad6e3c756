"""Upload batches that run to the end whatever happens to the page that started them.

Streamlit stops a script run at its next `st.*` call when its session ends (tab closed)
and, with `runner.fastReruns` (the default), when the user touches a widget mid-run. A
batch indexed in the script thread was therefore abandoned half-way. Here each batch
runs in a worker thread owned by a process-wide registry; the worker never calls
Streamlit (its API is not safe off the script thread), it only updates its record.
Pages poll the registry. Each batch's record is also written as JSON under
`data_dir/upload-reports/` after every file, so a report survives the session (and the
process: a batch whose process died is shown as interrupted, with the files it did).
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from docsassistant.agent.faults import database_fault_message
from docsassistant.config import Settings, get_settings
from docsassistant.ingest import Progress
from docsassistant.ui import uploads

# A batch whose page has not looked at it for this long is unwatched: the next page to
# open shows it (a page that watches polls every POLL_S seconds).
POLL_S = 1.0
UNWATCHED_AFTER_S = 5.0
KEEP_REPORTS = 50  # report files kept on disk, newest first

RUNNING, FINISHED, STOPPED, INTERRUPTED = "running", "finished", "stopped", "interrupted"
PROCESS_ID = uuid.uuid4().hex
STATUSES = ("added", "updated", "unchanged", "removed", "failed", "skipped")  # IngestReport's order


@dataclass
class Row:
    file: str
    status: str
    chunks: int = 0
    reason: str = ""


@dataclass
class BatchRecord:
    """One upload batch as the page shows it and as it is stored (JSON)."""

    id: str
    component: str
    total: int
    started_at: str  # ISO 8601, UTC
    pid: int
    process: str  # PROCESS_ID of the process that ran it (a pid alone is reused, e.g. in containers)
    state: str = RUNNING  # running | finished | stopped (an error ended it) | interrupted
    rows: list[Row] = field(default_factory=list)
    error: str = ""
    finished_at: str = ""
    delivered: bool = False  # a page showed the final report
    dismissed: bool = False

    @property
    def done(self) -> int:
        return len(self.rows)

    @property
    def failed(self) -> int:
        return sum(r.status == "failed" for r in self.rows)

    def summary(self) -> str:
        counts = {s: sum(r.status == s for r in self.rows) for s in STATUSES}
        return ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing to do"

    @classmethod
    def from_json(cls, data: dict) -> BatchRecord:
        rows = [Row(**r) for r in data.pop("rows", [])]
        return cls(**data, rows=rows)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def reports_dir(settings: Settings | None = None) -> Path:
    return (settings or get_settings()).data_dir / "upload-reports"


class Registry:
    """The batches of this process, by id; the lock guards every record it holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, BatchRecord] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._watched: dict[str, float] = {}  # id -> monotonic time a page last showed it

    def start(self, batch: list[uploads.Upload], component: str, settings: Settings) -> str:
        """Start indexing `batch` (already read into memory) in a worker; returns its id."""
        record = BatchRecord(uuid.uuid4().hex, component, len(batch), _now(), os.getpid(), PROCESS_ID)
        with self._lock:
            self._jobs[record.id] = record
            self._watched[record.id] = time.monotonic()
            _save(record, settings)
        # Not a daemon: a server stop waits for the batch instead of leaving it half done.
        thread = threading.Thread(
            target=self._run, args=(record, batch, settings), name=f"upload-{record.id[:8]}"
        )
        with self._lock:
            self._threads[record.id] = thread
        thread.start()
        return record.id

    def _run(self, record: BatchRecord, batch: list[uploads.Upload], settings: Settings) -> None:
        def progress(p: Progress) -> None:
            r = p.result
            with self._lock:
                record.rows.append(Row(r.source_path, r.status, r.chunks, r.reason or ""))
                _save(record, settings)

        try:
            uploads.save_and_index(batch, record.component, settings=settings, progress=progress)
            state, error = FINISHED, ""
        except Exception as exc:  # e.g. the database went away: files committed so far stay indexed
            state = STOPPED
            error = database_fault_message(exc, retry="upload the files again") or (
                f"{type(exc).__name__}: {exc}. Files indexed before it stay indexed."
            )
        with self._lock:
            record.state, record.error, record.finished_at = state, error, _now()
            self._threads.pop(record.id, None)
            _save(record, settings)

    def get(self, job_id: str, settings: Settings) -> BatchRecord | None:
        """A copy of the batch's record (from memory, else from its report file)."""
        with self._lock:
            record = self._jobs.get(job_id)
            if record is not None:
                return BatchRecord.from_json(asdict(record))
        return _load(reports_dir(settings) / f"{job_id}.json")

    def watch(self, job_id: str) -> None:
        with self._lock:
            self._watched[job_id] = time.monotonic()

    def mark(self, job_id: str, settings: Settings, **flags: bool) -> None:
        """Set `delivered` or `dismissed` on a batch, in memory and in its report file."""
        with self._lock:
            record = self._jobs.get(job_id) or _load(reports_dir(settings) / f"{job_id}.json")
            # The page marks a shown report on every rerun: write only a change.
            if record is None or all(getattr(record, name) == value for name, value in flags.items()):
                return
            for name, value in flags.items():
                setattr(record, name, value)
            _save(record, settings)

    def unwatched(self, settings: Settings) -> BatchRecord | None:
        """The most recent batch no page is watching whose end no page has shown: a batch
        whose page went away (still running, or finished since), or one a stopped process
        left (interrupted). None when there is none."""
        now = time.monotonic()
        with self._lock:
            watched = {i for i, t in self._watched.items() if now - t < UNWATCHED_AFTER_S}
        candidates = [
            r
            for path in reports_dir(settings).glob("*.json")
            if (r := _load(path)) is not None
            and not r.delivered
            and not r.dismissed
            and r.id not in watched
            and (r.state != RUNNING or r.process == PROCESS_ID)  # another live process's batch: its own
        ]
        if not candidates:
            return None
        latest = max(candidates, key=lambda r: r.started_at)
        return self.get(latest.id, settings)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the running batches (tests, and a clean shutdown)."""
        with self._lock:
            threads = list(self._threads.values())
        for thread in threads:
            thread.join(timeout)


def _save(record: BatchRecord, settings: Settings) -> None:
    """Write the record atomically (temp file, then rename): a reader never sees half a
    report. Called under the registry's lock, so writes of one record never overtake each
    other. A write that fails (full disk) costs the report, never the batch."""
    folder = reports_dir(settings)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(asdict(record))
        tmp = folder / f".{record.id}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, folder / f"{record.id}.json")
        if record.state != RUNNING:
            _prune(folder)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    reports = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in reports[KEEP_REPORTS:]:
        old.unlink(missing_ok=True)


def _load(path: Path) -> BatchRecord | None:
    try:
        record = BatchRecord.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):  # missing, or not one of our reports
        return None
    # Running by the file, but in another process, which died: the files listed were
    # indexed, the rest were not. (One still alive is running it: left to its own pages.)
    if record.state == RUNNING and record.process != PROCESS_ID and not _alive(record.pid):
        record.state = INTERRUPTED
    return record


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # another process by its id: an earlier one whose pid we reuse
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


REGISTRY = Registry()
