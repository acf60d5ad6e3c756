"""API keys for MCP callers: created, listed and revoked by the CLI, checked on every call.

Only the SHA-256 of a key's secret is stored. The secret has 256 random bits, so a plain
hash is enough (no salt or slow hash: nothing to brute-force), and a lookup by hash
needs no constant-time comparison in Python.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from pydantic import BaseModel

from docsassistant.config import Settings, get_settings
from docsassistant.inputs import MAX_COMPONENT_CHARS, InputError, clean_text
from docsassistant.sources import validate_component
from docsassistant.store import open_store

SECRET_PREFIX = "da_"


class ApiKey(BaseModel):
    """A key's record (never its secret). `components` None means every component."""

    id: int
    name: str
    components: list[str] | None
    created_at: datetime
    revoked_at: datetime | None = None


class NewKey(BaseModel):
    """What `keys add` returns: the record and the secret, shown this once."""

    key: ApiKey
    secret: str


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def normalise_components(names: Sequence[str]) -> list[str]:
    """Component names as search compares them: stripped, lower-case, no duplicates."""
    cleaned = [clean_text(n, what="component name", max_chars=MAX_COMPONENT_CHARS).lower() for n in names]
    return sorted(set(cleaned))


_COLUMNS = "id, name, components, created_at, revoked_at"


def add_key(name: str, components: Sequence[str] | None, *, settings: Settings | None = None) -> NewKey:
    """A new key for `name` limited to `components` (None: all). Refuses a name in use."""
    name = clean_text(name, what="key name", max_chars=64)
    allowed = None if components is None else normalise_components(components)
    for component in allowed or []:
        try:
            validate_component(component)
        except ValueError as exc:  # no ingest could ever make it: the key would read nothing
            raise InputError(f"{exc} Component names are checked as ingest checks them.") from None
    if allowed == []:
        raise InputError("Give at least one component (--components a,b) or --all-components.")
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        taken = conn.execute(
            sa.text("SELECT 1 FROM mcp_keys WHERE name = :n AND revoked_at IS NULL"), {"n": name}
        ).first()
        if taken:
            raise InputError(f"An active key named {name!r} exists: revoke it first or pick another name.")
        row = (
            conn.execute(
                sa.text(
                    f"INSERT INTO mcp_keys (name, secret_sha256, components) VALUES (:n, :h, :c) RETURNING {_COLUMNS}"
                ),
                {"n": name, "h": secret_hash(secret), "c": allowed},
            )
            .mappings()
            .one()
        )
    return NewKey(key=ApiKey(**row), secret=secret)


def list_keys(*, include_revoked: bool = False, settings: Settings | None = None) -> list[ApiKey]:
    engine = open_store(settings or get_settings(), check=False)
    where = "" if include_revoked else "WHERE revoked_at IS NULL"
    with engine.connect() as conn:
        rows = conn.execute(sa.text(f"SELECT {_COLUMNS} FROM mcp_keys {where} ORDER BY name, id")).mappings()
        return [ApiKey(**row) for row in rows]


def revoke_key(name: str, *, settings: Settings | None = None) -> ApiKey:
    """Revoke the active key called `name`; it stops working on the next request."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.begin() as conn:
        row = (
            conn.execute(
                sa.text(
                    "UPDATE mcp_keys SET revoked_at = now() WHERE name = :n AND revoked_at IS NULL "
                    f"RETURNING {_COLUMNS}"
                ),
                {"n": (name or "").strip()},
            )
            .mappings()
            .first()
        )
    if row is None:
        raise InputError(f"No active key named {name!r}: `docsassistant mcp keys list` shows them.")
    return ApiKey(**row)


def find_key(secret: str, *, settings: Settings | None = None) -> ApiKey | None:
    """The active key whose secret this is, or None (unknown, malformed or revoked)."""
    return _key_of(secret, revoked=False, settings=settings)


def revoked_key(secret: str, *, settings: Settings | None = None) -> ApiKey | None:
    """The revoked key whose secret this is, or None (to name it in the call log)."""
    return _key_of(secret, revoked=True, settings=settings)


def _key_of(secret: str, *, revoked: bool, settings: Settings | None) -> ApiKey | None:
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
        return None
    state = "IS NOT NULL" if revoked else "IS NULL"
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        query = sa.text(f"SELECT {_COLUMNS} FROM mcp_keys WHERE secret_sha256 = :h AND revoked_at {state}")
        row = conn.execute(query, {"h": secret_hash(secret)}).mappings().first()
    return None if row is None else ApiKey(**row)
