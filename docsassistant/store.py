"""Opening the store: migrate the schema and check which embedding model built it."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from docsassistant.config import Settings, get_settings
from docsassistant.db import get_engine
from docsassistant.embeddings import embedder_identity, get_embedder, is_bundled, setting_for_identity

MIGRATIONS = Path(__file__).parent / "migrations"
_BUNDLED_DIM = 384
# The chunks' HNSW index holds canonical chunks only, one per (component, embedding):
# identical vectors in the graph link only to each other and trap its search (0009).
CHUNKS_HNSW_INDEX = (
    "CREATE INDEX ix_chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops) WHERE canonical"
)


class StoreModelMismatch(RuntimeError):
    """The store was built with another embedding model than the configured one."""


def configured_dim(settings: Settings) -> int:
    """The configured model's dimension, without loading torch for the bundled model."""
    if is_bundled(settings.embedding_model):
        return _BUNDLED_DIM
    return get_embedder(settings).dim


def alembic_config(conn: sa.Connection, embedding_dim: int | None = None) -> Config:
    """Alembic's configuration for migrating `conn` (env.py uses the connection it is given)."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    if embedding_dim is not None:
        cfg.attributes["embedding_dim"] = embedding_dim
    return cfg


def migrate(engine: Engine, embedding_dim: int) -> None:
    """Apply pending Alembic migrations (serialised across processes by an advisory lock)."""
    with engine.begin() as conn:
        cfg = alembic_config(conn, embedding_dim)
        current = MigrationContext.configure(conn).get_current_revision()
        head = ", ".join(ScriptDirectory.from_config(cfg).get_heads())
        if current is not None and current != head:
            # An existing store: some upgrades rebuild indexes (0007 -> 0010 took 100.9 s on
            # 100,000 chunks), and a silent pause at start-up looks like a hang.
            print(
                f"Upgrading the store's schema from revision {current} to {head}; "
                "on a large store this can take a few minutes.",
                file=sys.stderr,
                flush=True,
            )
        command.upgrade(cfg, "heads")  # branches re-chained on merge


def stored_model(engine: Engine) -> tuple[str, int, str] | None:
    """(model, dimension, embedder identity) the store was built with; stores from before
    the ONNX embedder have no identity recorded and were built with torch."""
    with engine.connect() as conn:
        rows = dict(conn.execute(sa.text("SELECT key, value FROM store_meta")).all())
    if "embedding_model" not in rows:
        return None
    return rows["embedding_model"], int(rows["embedding_dim"]), rows.get("embedder", "torch")


def record_model(conn: sa.Connection, name: str, dim: int, embedder: str) -> None:
    for key, value in (("embedding_model", name), ("embedding_dim", str(dim)), ("embedder", embedder)):
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
    identity = embedder_identity(settings)
    found = stored_model(engine)
    if found is None:
        with engine.begin() as conn:
            record_model(conn, settings.embedding_model, dim, identity)
        return
    name, stored_dim, stored_identity = found
    if name != settings.embedding_model or stored_dim != dim:
        raise StoreModelMismatch(
            f"The document store was built with embedding model {name!r} ({stored_dim} dims), "
            f"but DOCSASSISTANT_EMBEDDING_MODEL is {settings.embedding_model!r} ({dim} dims). "
            f"Run `docsassistant reindex` to re-embed every chunk with the configured model, "
            f"or set DOCSASSISTANT_EMBEDDING_MODEL={name!r}."
        )
    if stored_identity != identity:
        setting = setting_for_identity(stored_identity)
        back = f", or set DOCSASSISTANT_EMBEDDER={setting}" if setting else ""
        raise StoreModelMismatch(
            f"The document store was embedded with the {stored_identity!r} embedder, but "
            f"DOCSASSISTANT_EMBEDDER={settings.embedder} gives {identity!r}; their vectors differ "
            f"slightly. Run `docsassistant reindex` to re-embed every chunk with the configured "
            f"embedder{back}."
        )


_opened: set[str] = set()
_checked: set[tuple[str, str, str]] = set()
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
    checked_as = (key, settings.embedding_model, settings.embedder)
    if check and checked_as not in _checked:
        check_model(engine, settings)
        _checked.add(checked_as)
    return engine
