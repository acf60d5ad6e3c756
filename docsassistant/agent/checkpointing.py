"""The compiled graph and its PostgreSQL checkpointer: one connection pool per process
and database, rebuilt after a database fault."""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph.state import CompiledStateGraph
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from docsassistant.agent.graph import build_graph
from docsassistant.config import Settings, get_settings
from docsassistant.db import libpq_uri
from docsassistant.store import open_store

_graphs: dict[str, CompiledStateGraph] = {}
_graphs_lock = threading.Lock()
SETUP_LOCK_ID = 0x0D0C_5A55_0C4E  # advisory lock key: one checkpointer setup at a time
SETUP_WAIT_S = 60.0


def setup_checkpointer(saver: PostgresSaver, pool: ConnectionPool) -> None:
    """`saver.setup()` in one process at a time. Two processes creating the checkpoint
    tables at once made one fail (UniqueViolation on checkpoint_migrations, found by an
    independent QA pass: four `ask` processes on a fresh store lost a turn). The lock is
    polled, not waited on: setup runs CREATE INDEX CONCURRENTLY, which waits for every open
    transaction, a blocked `pg_advisory_lock` call included, and would deadlock with it."""
    with pool.connection() as conn:
        deadline = time.monotonic() + SETUP_WAIT_S
        while not conn.execute("SELECT pg_try_advisory_lock(%s) AS ok", (SETUP_LOCK_ID,)).fetchone()["ok"]:
            if time.monotonic() > deadline:
                raise psycopg.OperationalError(
                    f"Another process has been setting up the checkpoint tables for over {SETUP_WAIT_S:.0f} s."
                )
            time.sleep(0.05)
        try:
            saver.setup()  # idempotent: a second process finds the migrations applied
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_ID,))


def get_graph(settings: Settings | None = None) -> CompiledStateGraph:
    """The compiled graph with a PostgreSQL checkpointer (one pool per process)."""
    settings = settings or get_settings()
    uri = libpq_uri(settings)
    with _graphs_lock:
        if uri not in _graphs:
            open_store(settings, check=False)
            pool = ConnectionPool(
                uri,
                min_size=1,
                max_size=4,
                # setup() runs CREATE INDEX CONCURRENTLY: it needs autocommit.
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
                # A connection left over from before a database restart is dropped, not used.
                check=ConnectionPool.check_connection,
                timeout=5.0,  # a turn waits this long for a connection before it fails, recorded
                open=True,
            )
            saver = PostgresSaver(pool)
            setup_checkpointer(saver, pool)
            _graphs[uri] = build_graph(saver)
        return _graphs[uri]


def forget_graph(settings: Settings) -> None:
    """Drop the graph and close its pool after a database fault: the next turn starts with
    fresh connections instead of waiting out the pool's reconnection back-off."""
    with _graphs_lock:
        graph = _graphs.pop(libpq_uri(settings), None)
    if graph is not None:
        graph.checkpointer.conn.close(timeout=0)  # type: ignore[union-attr]


def get_checkpointer(settings: Settings | None = None) -> PostgresSaver:
    return get_graph(settings).checkpointer  # type: ignore[return-value]


def config_for(thread_id: str, settings: Settings) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}, "recursion_limit": settings.recursion_limit}
