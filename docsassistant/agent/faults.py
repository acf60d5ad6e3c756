"""What to tell the user when a turn fails: a stop reason that says what to start or retry."""

from __future__ import annotations

import httpx
import psycopg
import sqlalchemy as sa
from psycopg_pool import PoolTimeout

from docsassistant.db import DatabaseUnavailable

DATABASE = (
    "the database connection was lost ({detail}). Check that PostgreSQL is running "
    "(`docsassistant db up` starts the embedded one), then ask again: your question is kept"
)
OLLAMA = (
    "the connection to Ollama failed ({detail}). Check that `ollama serve` is running and the "
    "model is pulled, then ask again: your question is kept"
)
INTERNAL = (
    "an internal error stopped the turn ({detail}). Ask again; if it happens again, report it "
    "with this message. Your question is kept"
)


def _detail(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or "no details"
    return f"{type(exc).__name__}: {text[:200]}"


def _caused_by(exc: BaseException, kinds: tuple[type[BaseException], ...]) -> BaseException | None:
    """`exc` or the first exception in its cause/context chain that is one of `kinds`."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kinds):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


_DATABASE_ERRORS = (psycopg.OperationalError, sa.exc.OperationalError, DatabaseUnavailable, PoolTimeout)


def database_fault_message(exc: BaseException, retry: str = "run the command again") -> str | None:
    """What a command (or the upload page, with its own `retry`) should say when `exc`
    comes from a lost database connection."""
    found = _caused_by(exc, _DATABASE_ERRORS)
    if found is None:
        return None
    return (
        f"The database connection was lost ({_detail(found)}). Check that PostgreSQL is running "
        f"(`docsassistant db up` starts the embedded one), then {retry}: what was committed is "
        "kept, and an ingest skips the files it already indexed."
    )


def is_database_fault(exc: BaseException) -> bool:
    return _caused_by(exc, _DATABASE_ERRORS) is not None


def fault_reason(exc: BaseException) -> str:
    """The stop reason of a turn that `exc` ended."""
    database = _caused_by(exc, _DATABASE_ERRORS)
    if database is not None:
        return DATABASE.format(detail=_detail(database))
    model = _caused_by(exc, (httpx.HTTPError, ConnectionError))
    if model is not None or type(exc).__name__ == "ResponseError":  # the ollama client's HTTP error
        return OLLAMA.format(detail=_detail(model or exc))
    return INTERNAL.format(detail=_detail(exc))
