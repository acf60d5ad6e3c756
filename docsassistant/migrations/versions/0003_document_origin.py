"""Record where each document came from, so `ingest --prune` never touches uploads.

`origin` is 'cli' (docsassistant ingest / bootstrap), 'upload' (the upload page) or
'beir' (evaluation corpora). Documents indexed before this revision are backfilled as
'cli', except those whose file is in this store's uploads folder (how the upload page
recognised its own documents before): those are 'upload'.

Revision ID: 0003
"""

from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "ALTER TABLE documents ADD COLUMN origin text NOT NULL DEFAULT 'cli' "
        "CONSTRAINT documents_origin_check CHECK (origin IN ('cli', 'upload', 'beir'))"
    )
    _backfill_uploads()


def _backfill_uploads() -> None:
    """Mark documents whose file sits in this store's uploads folder as uploads."""
    from docsassistant.config import get_settings

    root = Path(get_settings().data_dir) / "uploads"
    if not root.is_dir():
        return
    pairs = [
        (folder.name, path.name)
        for folder in root.iterdir()
        if folder.is_dir()
        for path in folder.iterdir()
        if path.is_file()
    ]
    for component, source_path in pairs:
        op.get_bind().execute(
            sa.text("UPDATE documents SET origin = 'upload' WHERE component = :c AND source_path = :p"),
            {"c": component, "p": source_path},
        )


def downgrade() -> None:
    op.execute("ALTER TABLE documents DROP COLUMN origin")
