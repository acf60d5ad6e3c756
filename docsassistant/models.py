"""SQLAlchemy models. The schema itself is created by the Alembic migrations."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Full-text vector: headings weigh more than body text, and code identifiers
# (`hnsw.ef_search`, `<=>`, `PgVectorStore`) are kept verbatim in `search_terms`
# because PostgreSQL's parser splits or drops them.
TSV_EXPRESSION = (
    "setweight(array_to_tsvector(search_terms), 'A') || "
    "setweight(to_tsvector('english', coalesce(section, '')), 'B') || "
    "to_tsvector('english', content)"
)


class Base(DeclarativeBase):
    pass


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (sa.UniqueConstraint("component", "source_path"),)

    id: Mapped[int] = mapped_column(sa.BigInteger, sa.Identity(), primary_key=True)
    component: Mapped[str] = mapped_column(sa.Text, index=True)
    source_path: Mapped[str] = mapped_column(sa.Text)
    title: Mapped[str] = mapped_column(sa.Text)
    content_hash: Mapped[str] = mapped_column(sa.Text)
    media_type: Mapped[str] = mapped_column(sa.Text)
    size_bytes: Mapped[int] = mapped_column(sa.BigInteger)
    chunk_count: Mapped[int] = mapped_column(sa.Integer, default=0)
    origin: Mapped[str] = mapped_column(sa.Text, server_default="cli")  # cli | upload | beir
    indexed_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), server_default=sa.func.now())

    chunks: Mapped[list[Chunk]] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True
    )


class Chunk(Base):
    __tablename__ = "chunks"

    id: Mapped[int] = mapped_column(sa.BigInteger, sa.Identity(), primary_key=True)
    document_id: Mapped[int] = mapped_column(sa.ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    # Denormalised from documents so a component filter needs no join in the vector scan.
    component: Mapped[str] = mapped_column(sa.Text)
    ordinal: Mapped[int] = mapped_column(sa.Integer)
    section: Mapped[str] = mapped_column(sa.Text, default="")
    content: Mapped[str] = mapped_column(sa.Text)
    search_terms: Mapped[list[str]] = mapped_column(ARRAY(sa.Text), default=list)
    embedding = mapped_column(Vector())
    tsv = mapped_column(TSVECTOR, sa.Computed(TSV_EXPRESSION, persisted=True))

    document: Mapped[Document] = relationship(back_populates="chunks")


class StoreMeta(Base):
    """Key/value facts about the store, e.g. which embedding model built it."""

    __tablename__ = "store_meta"

    key: Mapped[str] = mapped_column(sa.Text, primary_key=True)
    value: Mapped[str] = mapped_column(sa.Text)


class Conversation(Base):
    """One chat thread (its messages live in LangGraph's checkpoint tables)."""

    __tablename__ = "conversations"

    thread_id: Mapped[str] = mapped_column(sa.Text, primary_key=True)
    title: Mapped[str] = mapped_column(sa.Text)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), server_default=sa.func.now())
    updated_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), server_default=sa.func.now())


class ShareLink(Base):
    """A read-only snapshot of a conversation, reachable by an unguessable token."""

    __tablename__ = "share_links"

    token: Mapped[str] = mapped_column(sa.Text, primary_key=True)
    thread_id: Mapped[str] = mapped_column(sa.Text, index=True)
    title: Mapped[str] = mapped_column(sa.Text)
    snapshot: Mapped[dict] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(sa.DateTime(timezone=True), server_default=sa.func.now())
    revoked_at: Mapped[datetime | None] = mapped_column(sa.DateTime(timezone=True), nullable=True)
