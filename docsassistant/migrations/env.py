"""Alembic environment: migrate the connection we are given, or the configured database."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

from docsassistant.models import Base

# An arbitrary constant: serialises concurrent migrations from several processes.
MIGRATION_LOCK_ID = 7_346_112


def run_migrations(connection: sa.Connection) -> None:
    context.configure(connection=connection, target_metadata=Base.metadata)
    connection.execute(sa.text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    run_migrations(connection)
else:
    from docsassistant.db import get_engine

    with get_engine().begin() as conn:
        run_migrations(conn)
