"""Listing, deleting and counting indexed documents."""

from __future__ import annotations

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.store import open_store


def list_documents(component: str | None = None, *, settings: Settings | None = None) -> list[dict]:
    """Indexed documents (newest first within a component), with their chunk counts."""
    engine = open_store(settings or get_settings(), check=False)
    sql = (
        "SELECT id, component, source_path, title, media_type, size_bytes, chunk_count, origin, indexed_at "
        "FROM documents WHERE (CAST(:c AS text) IS NULL OR component = :c) "
        "ORDER BY component, source_path"
    )
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.text(sql), {"c": component}).mappings()]


def delete_document(component: str, source_path: str, *, settings: Settings | None = None) -> bool:
    """Delete one document; its chunks go with it (ON DELETE CASCADE)."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        deleted = conn.execute(
            sa.text("DELETE FROM documents WHERE component = :c AND source_path = :p"),
            {"c": component, "p": source_path},
        ).rowcount
    return bool(deleted)


def delete_component(component: str, *, settings: Settings | None = None) -> int:
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        return conn.execute(sa.text("DELETE FROM documents WHERE component = :c"), {"c": component}).rowcount


def store_stats(*, settings: Settings | None = None) -> list[dict]:
    """Documents and chunks per component."""
    engine = open_store(settings or get_settings(), check=False)
    sql = (
        "SELECT d.component, count(DISTINCT d.id) AS documents, count(c.id) AS chunks "
        "FROM documents d LEFT JOIN chunks c ON c.document_id = d.id "
        "GROUP BY d.component ORDER BY d.component"
    )
    with engine.connect() as conn:
        return [dict(r) for r in conn.execute(sa.text(sql)).mappings()]
