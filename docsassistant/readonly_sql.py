"""The agent's SQL tool: fixed, parameterized queries run as the read-only role.

Every statement runs inside a READ ONLY transaction under `SET LOCAL ROLE docs_readonly`
(SELECT on documents and chunks, nothing else), so even a bug here cannot write, and
with a 5 s statement timeout, so none can hold a connection for long.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa

from docsassistant.config import Settings, get_settings
from docsassistant.store import open_store

READONLY_ROLE = "docs_readonly"
STATEMENT_TIMEOUT_MS = 5000

COUNT_CHUNKS_SQL = sa.text(
    """
    SELECT count(*) AS chunks, count(DISTINCT c.document_id) AS documents
    FROM chunks c
    WHERE (CAST(:component AS text) IS NULL OR c.component = :component)
      AND (CAST(:allowed AS text[]) IS NULL OR c.component = ANY(CAST(:allowed AS text[])))
      AND (CAST(:mentioning AS text) IS NULL OR c.tsv @@ plainto_tsquery('english', :mentioning))"""
)


@contextmanager
def readonly_connection(settings: Settings | None = None) -> Iterator[sa.Connection]:
    """A connection whose transaction runs as `docs_readonly` and is READ ONLY."""
    engine = open_store(settings or get_settings(), check=False)
    with engine.connect() as conn, conn.begin() as tx:
        conn.execute(sa.text("SET TRANSACTION READ ONLY"))
        conn.execute(sa.text(f"SET LOCAL ROLE {READONLY_ROLE}"))
        # A bound as well as a role: no statement here may hold a connection for long.
        conn.execute(sa.text(f"SET LOCAL statement_timeout = {STATEMENT_TIMEOUT_MS}"))
        try:
            yield conn
        finally:
            tx.rollback()  # nothing to keep; also resets the role


def count_chunks(
    component: str | None = None,
    mentioning: str | None = None,
    *,
    settings: Settings | None = None,
    allowed_components: Sequence[str] | None = None,
) -> dict:
    """Count the indexed chunks (and documents) of one component, or of all when None;
    with `mentioning`, only the chunks whose text has all of its words (stemmed, as the
    full-text search matches them).

    `allowed_components` (None: all) limits the count to those components, in the query.
    """
    if component is not None:
        component = component.strip().lower() or None
    allowed = None if allowed_components is None else [c.strip().lower() for c in allowed_components]
    mentioning = (mentioning or "").strip() or None
    params = {"component": component, "allowed": allowed, "mentioning": mentioning}
    with readonly_connection(settings) as conn:
        row = conn.execute(COUNT_CHUNKS_SQL, params).mappings().one()
    counted = {"component": component, "chunks": int(row["chunks"]), "documents": int(row["documents"])}
    return counted | ({"mentioning": mentioning} if mentioning else {})
