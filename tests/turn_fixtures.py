"""Helpers shared by the turn tests: a small indexed corpus and storage figures."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from conftest import write

from docsassistant.ingest import index_paths

DOCS = {
    "retries.md": "# Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n",
    "timeouts.md": "# Timeouts\n\nThe default request timeout is thirty seconds; set CLIENT_TIMEOUT to change it.\n",
    "auth.md": "# Authentication\n\nAccess tokens are signed with HMAC-SHA256 and expire after one hour.\n",
    "cache.md": "# Embedding cache\n\nThe embedding cache keeps vectors on disk for seven days.\n",
    "logging.md": "# Logging\n\nLog files rotate daily and are kept for fourteen days.\n",
}
# A question per document, and a phrase only that document's answer contains.
QUESTIONS = {
    "retries.md": ("How many times does the HTTP client retry failed requests?", "three times"),
    "timeouts.md": ("What is the default request timeout?", "thirty seconds"),
    "auth.md": ("When do access tokens expire?", "one hour"),
    "cache.md": ("How long does the embedding cache keep vectors?", "seven days"),
    "logging.md": ("How long are log files kept?", "fourteen days"),
}


def index_small_corpus(root: Path) -> None:
    for name, text in DOCS.items():
        write(root / "core" / name, text)
    assert index_paths([root / "core"], component="core", base=root).counts()["failed"] == 0


# The columns that hold a thread's data (pg_column_size: as stored, after compression).
STORED_COLUMNS = {
    "checkpoints": ("thread_id", "checkpoint_id", "parent_checkpoint_id", "checkpoint", "metadata"),
    "checkpoint_blobs": ("thread_id", "channel", "version", "blob"),
    "checkpoint_writes": ("thread_id", "checkpoint_id", "task_id", "channel", "blob"),
    "turn_records": ("thread_id", "question", "stop_reason", "record"),
}


def thread_storage(engine: sa.Engine, thread_id: str) -> dict[str, int]:
    """Bytes a thread takes in each table (row sizes as PostgreSQL stores them)."""
    sizes = {}
    with engine.connect() as conn:
        for table, columns in STORED_COLUMNS.items():
            total = " + ".join(f"coalesce(pg_column_size({c}), 0)" for c in columns)
            sizes[table] = conn.execute(
                sa.text(f"SELECT coalesce(sum({total}), 0) FROM {table} WHERE thread_id = :t"),
                {"t": thread_id},
            ).scalar_one()
    return sizes


def checkpoint_rows(engine: sa.Engine, thread_id: str) -> int:
    with engine.connect() as conn:
        return conn.execute(
            sa.text("SELECT count(*) FROM checkpoints WHERE thread_id = :t"), {"t": thread_id}
        ).scalar_one()
