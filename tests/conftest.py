"""Shared fixtures: one embedded PostgreSQL and one embedding model for the whole suite.

The environment is set before anything imports the package settings, so every test
(and every subprocess a test starts) uses a throwaway data folder.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

TESTS_DIR = Path(__file__).parent
sys.path.insert(0, str(TESTS_DIR))  # `import fake_ollama` from tests

_DATA_DIR = Path(tempfile.mkdtemp(prefix="docsassistant-tests-"))
os.environ["DOCSASSISTANT_DATA_DIR"] = str(_DATA_DIR)
os.environ.pop("DATABASE_URL", None)
if os.environ.get("DOCSASSISTANT_TEST_DATABASE_URL"):
    os.environ["DATABASE_URL"] = os.environ["DOCSASSISTANT_TEST_DATABASE_URL"]
os.environ["HF_HUB_OFFLINE"] = "1"
# Nothing in the suite may reach a real Ollama by accident.
os.environ["OLLAMA_HOST"] = "http://127.0.0.1:9"

from fake_ollama import FakeOllama, ShapeFake  # noqa: E402

from docsassistant.config import Settings, get_settings  # noqa: E402


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    from docsassistant.db import stop_embedded

    try:
        stop_embedded(get_settings())
    finally:
        shutil.rmtree(_DATA_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
def settings() -> Settings:
    get_settings.cache_clear()
    return get_settings()


@pytest.fixture(scope="session")
def engine(settings: Settings):
    from docsassistant.store import open_store

    return open_store(settings)


@pytest.fixture(scope="session")
def embedder(settings: Settings):
    from docsassistant.embeddings import get_embedder

    return get_embedder(settings)


@pytest.fixture
def clean_db(engine, embedder):
    """An empty store (documents, chunks, conversations, share links, checkpoints)."""
    import sqlalchemy as sa

    with engine.begin() as conn:
        conn.execute(sa.text("TRUNCATE documents, chunks, conversations, share_links CASCADE"))
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
            if conn.execute(sa.text("SELECT to_regclass(:t)"), {"t": table}).scalar():
                conn.execute(sa.text(f"TRUNCATE {table}"))
    return engine


@pytest.fixture
def fake_ollama(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    """A scripted fake Ollama; the app's settings point at it for this test."""
    with FakeOllama(mode="scripted") as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        get_settings.cache_clear()
        yield server
    get_settings.cache_clear()


@pytest.fixture
def cooperative_ollama(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    """A deterministic fake Ollama that behaves like a cooperative tool-calling model."""
    with FakeOllama(mode="deterministic") as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        get_settings.cache_clear()
        yield server
    get_settings.cache_clear()


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[ShapeFake]:
    """A fake Ollama scripted per kind of request (cooperative where unscripted); the app's
    settings point at it for this test."""
    with ShapeFake() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.url)
        get_settings.cache_clear()
        yield server
    get_settings.cache_clear()


@pytest.fixture
def fresh_streamlit_caches() -> Iterator[None]:
    """`st.cache_*` survive across AppTest runs in one process: start each test clean."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def answer_docs(clean_db, tmp_path: Path) -> Path:
    """The answer-behaviour tests' small corpus (tests/answer_fixtures.py), indexed as "core"."""
    from answer_fixtures import index_answer_docs

    return index_answer_docs(tmp_path)


def write(path: Path, text: str) -> Path:
    """Write a fixture file, creating folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def flags(record: dict[str, Any]) -> list[str]:
    """The kinds of a turn record's flags, in order."""
    return [f["kind"] for f in record["flags"]]


def entity_index_options(conn: Any) -> list[str] | None:
    """The entity HNSW index's build options (pg_class.reloptions), e.g. ["m=8", ...]."""
    import sqlalchemy as sa  # imported late, as the package is: the environment comes first

    return conn.execute(
        sa.text("SELECT reloptions FROM pg_class WHERE relname = 'ix_entities_embedding_hnsw'")
    ).scalar()


def migrate_to(conn, target: str, down: bool = False) -> None:
    """Move the test store's schema on `conn` to Alembic revision `target` (or "heads")."""
    from alembic import command

    from docsassistant.store import alembic_config

    (command.downgrade if down else command.upgrade)(alembic_config(conn), target)
