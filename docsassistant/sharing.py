"""Share links: a read-only snapshot of a conversation behind an unguessable token.

A link stores the turns as they were when it was created; later turns in the original
thread do not show up in it, and continuing a shared conversation forks a new thread
(`docsassistant.agent.runner.fork_thread`), so the original is never changed.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from datetime import UTC
from typing import Any

import sqlalchemy as sa

from docsassistant.agent.records import SCHEMA_VERSION, TurnRecord
from docsassistant.config import Settings, get_settings
from docsassistant.conversations import get_conversation, title_of
from docsassistant.store import open_store

TOKEN_BYTES = 16  # secrets.token_urlsafe(16): 22 characters, 128 bits
_MAX_TOKEN_CHARS = 64


class ShareNotFound(LookupError):
    """No share link has this token; the message is shown to the visitor."""


class ShareRevoked(ShareNotFound):
    """The link existed but its owner revoked it."""


class NothingToShare(ValueError):
    """The conversation has no finished turns yet."""


def create_share(
    thread_id: str,
    *,
    settings: Settings | None = None,
    turns: Sequence[TurnRecord | dict[str, Any]] | None = None,
) -> str:
    """Snapshot the thread's finished turns and return a new token.

    `turns` defaults to the thread's turns read from `turn_records`.
    """
    settings = settings or get_settings()
    if turns is None:
        from docsassistant.agent.runner import load_turns  # the agent is heavy: import on use

        turns = load_turns(thread_id, settings=settings)
    records = [r for r in (TurnRecord.model_validate(t) for t in turns) if r.status != "running"]
    if not records:
        raise NothingToShare("There is nothing to share yet: ask a question first.")
    conversation = get_conversation(thread_id, settings=settings)
    title = conversation["title"] if conversation else title_of(records[0].question)
    # The version says how to read the turns; snapshots without one hold version-1 dicts.
    snapshot = {
        "schema_version": SCHEMA_VERSION,
        "thread_id": thread_id,
        "title": title,
        "turns": [r.to_json() for r in records],
    }
    token = secrets.token_urlsafe(TOKEN_BYTES)
    engine = open_store(settings, check=False)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO share_links (token, thread_id, title, snapshot, created_at) "
                "VALUES (:token, :thread_id, :title, CAST(:snapshot AS jsonb), now())"
            ),
            {"token": token, "thread_id": thread_id, "title": title, "snapshot": json.dumps(snapshot)},
        )
    return token


def get_share(token: str, *, settings: Settings | None = None) -> dict[str, Any]:
    """The shared snapshot: `{token, thread_id, title, turns, schema_version, created_at}`
    (`turns` as TurnRecord, whichever version wrote them).

    Raises ShareNotFound (unknown token) or ShareRevoked, each with a message for the visitor.
    """
    token = (token or "").strip()
    unknown = ShareNotFound(
        "This share link does not exist. Check that it was copied completely, or ask its owner for a new one."
    )
    if not token or len(token) > _MAX_TOKEN_CHARS:
        raise unknown
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        row = (
            conn.execute(
                sa.text(
                    "SELECT token, thread_id, title, snapshot, created_at, revoked_at "
                    "FROM share_links WHERE token = :token"
                ),
                {"token": token},
            )
            .mappings()
            .first()
        )
    if row is None:
        raise unknown
    if row["revoked_at"] is not None:
        raise ShareRevoked(
            f"This share link was revoked by its owner on {row['revoked_at'].astimezone(UTC):%Y-%m-%d %H:%M} UTC; "
            "the conversation is no longer shared."
        )
    snapshot = row["snapshot"] or {}
    return {
        "token": row["token"],
        "thread_id": row["thread_id"],
        "title": row["title"],
        "turns": [TurnRecord.model_validate(t) for t in snapshot.get("turns", [])],
        "schema_version": snapshot.get("schema_version", 1),
        "created_at": row["created_at"],
    }


def revoke_share(token: str, *, settings: Settings | None = None) -> bool:
    """Revoke a link; False if it does not exist or was already revoked."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        revoked = conn.execute(
            sa.text("UPDATE share_links SET revoked_at = now() WHERE token = :token AND revoked_at IS NULL"),
            {"token": token},
        ).rowcount
    return bool(revoked)


def list_shares(thread_id: str, *, settings: Settings | None = None) -> list[dict[str, Any]]:
    """The thread's links, newest first: `{token, title, created_at, revoked_at, turns}`."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT token, title, created_at, revoked_at, "
                "jsonb_array_length(coalesce(snapshot -> 'turns', '[]'::jsonb)) AS turns "
                "FROM share_links WHERE thread_id = :t ORDER BY created_at DESC, token"
            ),
            {"t": thread_id},
        ).mappings()
        return [dict(r) for r in rows]
