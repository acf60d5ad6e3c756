"""One turn at a time per thread: a PostgreSQL advisory lock keyed by the thread id.

Two turns on one thread would both extend the same checkpoint and one would be lost
silently. The lock lives in the database, so it holds across processes (the app, the
CLI, MCP); it is tied to its own connection, so a crashed process releases it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors, sql

# Seeds the 64-bit hash of the thread id, so our keys differ from another user's of the
# same database (and two threads' keys collide with odds of about 1 in 2^64).
LOCK_SEED = 0x7DA5
BUSY_WAIT_S = 3.0  # how long a second turn waits for the first before it is refused


class ThreadBusy(RuntimeError):
    """Another turn is running in this conversation; the message says what to do."""


@contextmanager
def thread_turn_lock(uri: str, thread_id: str, wait_s: float = BUSY_WAIT_S) -> Iterator[None]:
    """Hold the thread's lock for the block; wait up to `wait_s`, then raise ThreadBusy."""
    conn = psycopg.connect(uri, autocommit=True)
    try:
        # lock_timeout bounds the wait of pg_advisory_lock (an ordinary lock wait).
        conn.execute(
            sql.SQL("SET lock_timeout = {}").format(sql.Literal(f"{max(wait_s, 0.001) * 1000:.0f}ms"))
        )
        try:
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, %s))", (thread_id, LOCK_SEED))
        except errors.LockNotAvailable:
            raise ThreadBusy(
                "Another question is still being answered in this conversation. "
                "Wait for its answer, then ask again (or start a new conversation)."
            ) from None
        yield
    finally:
        # Closing the session releases the lock, also when the connection is already broken.
        conn.close()
