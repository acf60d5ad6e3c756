"""Opening the store: migrate the schema and check which embedding model built it."""

from __future__ import annotations

import threading
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

from docsassistant.config import Settings, get_settings
from docsassistant.db import get_engine
from docsassistant.embeddings import BUNDLED_MODEL, get_embedder

MIGRATIONS = Path(__file__).parent / "migrations"
_BUNDLED_DIM = 384


class StoreModelMismatch(RuntimeError):
    """The store was built with another embedding model than the configured one."""


def configured_dim(settings: Settings) -> int:
    """The configured model's dimension, without loading torch for the bundled model."""
    if settings.embedding_model in (BUNDLED_MODEL, f"sentence-transformers/{BUNDLED_MODEL}"):
        return _BUNDLED_DIM
    return get_embedder(settings).dim


def migrate(engine: Engine, embedding_dim: int) -> None:
    """Apply pending Alembic migrations (serialised across processes by an advisory lock)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["embedding_dim"] = embedding_dim
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "heads")  # branches re-chained on merge


def stored_model(engine: Engine) -> tuple[str, int] | None:
    with engine.connect() as conn:
        rows = dict(conn.execute(sa.text("SELECT key, value FROM store_meta")).all())
    if "embedding_model" not in rows:
        return None
    return rows["embedding_model"], int(rows["embedding_dim"])


def record_model(conn: sa.Connection, name: str, dim: int) -> None:
    for key, value in (("embedding_model", name), ("embedding_dim", str(dim))):
        conn.execute(
            sa.text(
                "INSERT INTO store_meta (key, value) VALUES (:k, :v) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
            ),
            {"k": key, "v": value},
        )


def check_model(engine: Engine, settings: Settings) -> None:
    """Record the model on first use; refuse a store built with a different one."""
    dim = configured_dim(settings)
    found = stored_model(engine)
    if found is None:
        with engine.begin() as conn:
            record_model(conn, settings.embedding_model, dim)
        return
    name, stored_dim = found
    if name != settings.embedding_model or stored_dim != dim:
        raise StoreModelMismatch(
            f"The document store was built with embedding model {name!r} ({stored_dim} dims), "
            f"but DOCSASSISTANT_EMBEDDING_MODEL is {settings.embedding_model!r} ({dim} dims). "
            f"Run `docsassistant reindex` to re-embed every chunk with the configured model, "
            f"or set DOCSASSISTANT_EMBEDDING_MODEL={name!r}."
        )


_opened: set[str] = set()
_checked: set[tuple[str, str]] = set()
_open_lock = threading.Lock()


def open_store(settings: Settings | None = None, *, check: bool = True) -> Engine:
    """The engine of a migrated store whose embedding model matches the settings."""
    settings = settings or get_settings()
    engine = get_engine(settings)
    key = str(engine.url)
    with _open_lock:
        if key not in _opened:
            migrate(engine, configured_dim(settings))
            _opened.add(key)
    # The model check is cached per process: a store rebuilt by `reindex` elsewhere keeps
    # matching the model this process was configured with.
    if check and (key, settings.embedding_model) not in _checked:
        check_model(engine, settings)
        _checked.add((key, settings.embedding_model))
    return engine
