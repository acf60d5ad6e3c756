"""The log of every MCP call: who called which tool with what, how many results, how long."""

from __future__ import annotations

import json
import logging
from typing import Any

import sqlalchemy as sa
from pydantic import BaseModel

from docsassistant.config import Settings, get_settings
from docsassistant.inputs import strip_controls
from docsassistant.store import open_store

log = logging.getLogger(__name__)
MAX_LOGGED_CHARS = 2000  # per string argument: a pasted log should not bloat the table


class Caller(BaseModel):
    """Who is calling: a key's name and the components it may read (None: all)."""

    name: str
    key_id: int | None = None
    components: list[str] | None = None


def _loggable(value: Any) -> Any:
    """Arguments as jsonb accepts them (no NUL) and bounded in size."""
    if isinstance(value, str):
        return strip_controls(value)[:MAX_LOGGED_CHARS]
    if isinstance(value, dict):
        return {str(k)[:100]: _loggable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_loggable(v) for v in value[:100]]
    return value if isinstance(value, int | float | bool | None) else str(value)[:MAX_LOGGED_CHARS]


def log_call(
    caller: Caller,
    tool: str,
    arguments: dict[str, Any],
    *,
    result_count: int | None,
    error: str | None,
    duration_ms: float,
    settings: Settings | None = None,
) -> None:
    """Write one row; a logging failure (database gone) is reported on stderr, not raised,
    so the caller still gets the real error of the call itself."""
    try:
        engine = open_store(settings or get_settings(), check=False)
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO mcp_calls (caller, key_id, tool, arguments, result_count, error, duration_ms) "
                    "VALUES (:caller, :key_id, :tool, CAST(:args AS jsonb), :n, :error, :ms)"
                ),
                {
                    "caller": caller.name,
                    "key_id": caller.key_id,
                    "tool": tool,
                    "args": json.dumps(_loggable(arguments)),
                    "n": result_count,
                    "error": None if error is None else strip_controls(error)[:MAX_LOGGED_CHARS],
                    "ms": duration_ms,
                },
            )
    except Exception as exc:
        log.error("Could not log the MCP call %s by %s: %s", tool, caller.name, exc)


def recent_calls(limit: int = 50, *, settings: Settings | None = None) -> list[dict[str, Any]]:
    """The latest calls, newest first (for `docsassistant mcp calls` and tests)."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT caller, tool, arguments, result_count, error, duration_ms, called_at "
                "FROM mcp_calls ORDER BY id DESC LIMIT :n"
            ),
            {"n": limit},
        ).mappings()
        return [dict(r) for r in rows]
