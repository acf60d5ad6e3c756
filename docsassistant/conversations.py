"""The conversation list (titles for the sidebar), and deleting conversations.

A conversation's turns live in `turn_records`, its resumable state in the checkpoints."""

from __future__ import annotations

from datetime import timedelta

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


class ConversationNotFound(LookupError):
    """No conversation has this thread id."""


def delete_conversation(thread_id: str, *, settings: Settings | None = None) -> None:
    """Delete a conversation: its turn records, checkpoints and list entry. Share links
    keep working: they hold copies. Waits briefly for a running turn (`ThreadBusy`)."""
    from docsassistant.agent.checkpointing import get_checkpointer  # the agent is heavy: import on use
    from docsassistant.agent.turn_lock import ThreadBusy, thread_turn_lock
    from docsassistant.db import libpq_uri

    settings = settings or get_settings()
    engine = open_store(settings, check=False)
    try:
        with thread_turn_lock(libpq_uri(settings), thread_id):
            with engine.begin() as conn:  # turn_records go with it (ON DELETE CASCADE)
                found = conn.execute(
                    sa.text("DELETE FROM conversations WHERE thread_id = :t"), {"t": thread_id}
                )
            checkpoints = get_checkpointer(settings)
            had_checkpoint = checkpoints.get_tuple({"configurable": {"thread_id": thread_id}}) is not None
            checkpoints.delete_thread(thread_id)
    except ThreadBusy:  # its own words tell the asker to ask again; here nobody asked (QA 8b)
        raise ThreadBusy(
            "A question is still being answered in this conversation: delete it once the answer is in."
        ) from None
    if not found.rowcount and not had_checkpoint:
        raise ConversationNotFound(
            f"No conversation has the id {thread_id!r}; `docsassistant conversations list` shows them."
        )


def stale_conversations(older_than: timedelta, *, settings: Settings | None = None) -> list[dict]:
    """Conversations not continued within `older_than`, oldest first."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT thread_id, title, created_at, updated_at FROM conversations "
                "WHERE updated_at < now() - :age ORDER BY updated_at"
            ),
            {"age": older_than},
        ).mappings()
        return [dict(r) for r in rows]


def prune_conversations(older_than: timedelta, *, settings: Settings | None = None) -> list[dict]:
    """Delete every conversation not continued within `older_than`; returns those deleted.
    One busy with a running turn is skipped (it was just continued anyway)."""
    from docsassistant.agent.turn_lock import ThreadBusy

    deleted = []
    for conversation in stale_conversations(older_than, settings=settings):
        try:
            delete_conversation(conversation["thread_id"], settings=settings)
        except (ThreadBusy, ConversationNotFound):
            continue
        deleted.append(conversation)
    return deleted
