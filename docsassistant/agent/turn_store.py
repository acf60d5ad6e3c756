"""The `turn_records` table: a turn is saved when it starts (status `running`, so the
question is never lost) and completed or failed when it ends.

Callers hold the thread's lock (`turn_lock`), so numbering turns by `max + 1` is safe.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sqlalchemy as sa

from docsassistant.agent.budget import STOP_PREFIX
from docsassistant.agent.records import TurnRecord
from docsassistant.config import Settings, get_settings
from docsassistant.store import open_store

INTERRUPTED = "the turn was interrupted before it finished (the app stopped or lost its database)"
INTERRUPTED_ANSWER = f"{STOP_PREFIX}{INTERRUPTED}. Ask the question again."

_INSERT = sa.text(
    "INSERT INTO turn_records (thread_id, turn_index, status, question, stop_reason, schema_version, record) "
    "VALUES (:thread_id, :turn_index, :status, :question, :stop_reason, :schema_version, CAST(:record AS jsonb))"
)


def _row(record: TurnRecord) -> dict[str, object]:
    return {
        "thread_id": record.thread_id,
        "turn_index": record.index,
        "status": record.status,
        "question": record.question,
        "stop_reason": record.stop_reason,
        "schema_version": record.schema_version,
        "record": record.model_dump_json(),
    }


def close_interrupted(conn: sa.Connection, thread_id: str) -> int:
    """Mark the thread's turns still `running` as failed: under the thread's lock no turn
    runs, so these are turns whose process died or lost the database before it could say so."""
    return conn.execute(
        sa.text(
            "UPDATE turn_records SET status = 'failed', stop_reason = :reason, finished_at = now(), "
            "record = record || jsonb_build_object('status', 'failed', 'stop_reason', CAST(:reason AS text), "
            "'answer', CAST(:answer AS text)) "
            "WHERE thread_id = :t AND status = 'running'"
        ),
        {"t": thread_id, "reason": INTERRUPTED, "answer": INTERRUPTED_ANSWER},
    ).rowcount


def close_if_idle(thread_id: str, *, settings: Settings | None = None) -> bool:
    """Close the thread's `running` turns when no turn holds the thread's lock: their process
    died or lost the database. Without this a reopened thread said "still being answered"
    until someone asked a new question in it (QA round 8b). False while a turn runs."""
    from docsassistant.agent.turn_lock import ThreadBusy, thread_turn_lock
    from docsassistant.db import libpq_uri

    settings = settings or get_settings()
    try:
        idle = thread_turn_lock(libpq_uri(settings), thread_id, wait_s=0)  # never waits for a turn
        with idle, open_store(settings, check=False).begin() as conn:
            close_interrupted(conn, thread_id)
    except ThreadBusy:
        return False
    return True


def start_turn(
    thread_id: str, question: str, component: str | None, *, settings: Settings | None = None
) -> TurnRecord:
    """Save the question of a new turn (status `running`) and return its record."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        close_interrupted(conn, thread_id)
        index = conn.execute(
            sa.text("SELECT coalesce(max(turn_index) + 1, 0) FROM turn_records WHERE thread_id = :t"),
            {"t": thread_id},
        ).scalar_one()
        record = TurnRecord(
            thread_id=thread_id,
            index=index,
            status="running",
            question=question,
            component=component,
            started_at=time.time(),
        )
        conn.execute(_INSERT, _row(record))
    return record


def finish_turn(record: TurnRecord, *, settings: Settings | None = None) -> None:
    """Store the finished (completed or failed) record over its running row."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE turn_records SET status = :status, stop_reason = :stop_reason, "
                "schema_version = :schema_version, record = CAST(:record AS jsonb), finished_at = now() "
                "WHERE thread_id = :thread_id AND turn_index = :turn_index"
            ),
            _row(record),
        )


def load_record(thread_id: str, index: int, *, settings: Settings | None = None) -> TurnRecord | None:
    """One turn of the thread (None if there is no such turn)."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        row = conn.execute(
            sa.text("SELECT record FROM turn_records WHERE thread_id = :t AND turn_index = :i"),
            {"t": thread_id, "i": index},
        ).scalar()
    return None if row is None else TurnRecord.model_validate(row)


def load_records(thread_id: str, *, settings: Settings | None = None) -> list[TurnRecord]:
    """The thread's turns in order (running and failed ones included)."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT record FROM turn_records WHERE thread_id = :t ORDER BY turn_index"),
            {"t": thread_id},
        ).scalars()
        return [TurnRecord.model_validate(row) for row in rows]


def copy_records(thread_id: str, records: Sequence[TurnRecord], *, settings: Settings | None = None) -> None:
    """Store copies of `records` as the turns of `thread_id` (a forked conversation)."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        for index, record in enumerate(records):
            conn.execute(_INSERT, _row(record.model_copy(update={"thread_id": thread_id, "index": index})))
