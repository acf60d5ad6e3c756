"""The conversation list (titles for the sidebar); messages live in the checkpoints."""

from __future__ import annotations

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.store import open_store

TITLE_CHARS = 80


def title_of(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"


def touch_conversation(thread_id: str, first_question: str, *, settings: Settings | None = None) -> None:
    """Create the conversation on its first turn (titled by it); bump it on later ones."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO conversations (thread_id, title) VALUES (:t, :title) "
                "ON CONFLICT (thread_id) DO UPDATE SET updated_at = now()"
            ),
            {"t": thread_id, "title": title_of(first_question)},
        )


def list_conversations(limit: int = 50, *, settings: Settings | None = None) -> list[dict]:
    """Newest first."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT thread_id, title, created_at, updated_at FROM conversations "
                "ORDER BY updated_at DESC LIMIT :n"
            ),
            {"n": limit},
        ).mappings()
        return [dict(r) for r in rows]


def get_conversation(thread_id: str, *, settings: Settings | None = None) -> dict | None:
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        row = (
            conn.execute(
                sa.text(
                    "SELECT thread_id, title, created_at, updated_at FROM conversations WHERE thread_id = :t"
                ),
                {"t": thread_id},
            )
            .mappings()
            .first()
        )
    return dict(row) if row else None
