"""Indexing files into the store: load, chunk, embed in batches, write one document per
transaction. Idempotent by content hash; one bad file fails alone."""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from docsassistant.agent.faults import is_database_fault
from docsassistant.chunking import ChunkDraft, chunk_document
from docsassistant.config import Settings, get_settings
from docsassistant.embeddings import get_embedder, vector_literal
from docsassistant.foreground import FOREGROUND
from docsassistant.knowledge_graph import finish_graph, prepare_graph, write_graph
from docsassistant.loaders import LoadedDocument, LoaderError, load_document
from docsassistant.prune import apply_prune, copies_note, plan_prune
from docsassistant.sources import (
    Refused,
    collect_files,
    read_regular_file,
    source_path_of,
    validate_component,
)
from docsassistant.store import open_store
from docsassistant.terms import code_terms

# Chunks collected before one call to the embedder: big enough for the model's own
# length-sorted batching to pay off, small enough to bound memory.
EMBED_GROUP = 512
# A document that splits into more chunks than this is refused before it is embedded:
# embedding runs at ~32 chunks/s on 2 cores, so 2,500 chunks already cost over a minute.
MAX_CHUNKS_PER_DOCUMENT = 2500
# Files are read whole (to hash and parse them): a bigger one is refused unread.
MAX_FILE_BYTES = 200 * 1024 * 1024
ORIGINS = ("cli", "upload", "beir")


@dataclass
class FileResult:
    source_path: str
    status: str  # added | updated | unchanged | removed | failed | skipped
    chunks: int = 0
    reason: str | None = None


@dataclass
class IngestTimings:
    """Seconds spent in each step, so the graph's share of an ingestion can be read off
    the run itself (docs/graph-retrieval.md)."""

    embed_chunks_s: float = 0.0
    write_chunks_s: float = 0.0
    graph_write_s: float = 0.0  # extraction and writing, in each document's transaction
    graph_embed_s: float = 0.0  # embedding the new entities after each group of documents
    graph_entities_embedded: int = 0

    def summary(self) -> str:
        return (
            f"chunk embedding {self.embed_chunks_s:.1f} s, chunk writing {self.write_chunks_s:.1f} s, "
            f"graph extraction and writing {self.graph_write_s:.1f} s, "
            f"entity embedding {self.graph_embed_s:.1f} s ({self.graph_entities_embedded:,} entities)"
        )


@dataclass
class IngestReport:
    component: str
    results: list[FileResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. why a prune was refused
    timings: IngestTimings = field(default_factory=IngestTimings)

    def by_status(self, status: str) -> list[FileResult]:
        return [r for r in self.results if r.status == status]

    def counts(self) -> dict[str, int]:
        names = ("added", "updated", "unchanged", "removed", "failed", "skipped")
        return {name: len(self.by_status(name)) for name in names}


@dataclass
class Progress:
    """Reported after each file: `done` of `total` files handled so far."""

    done: int
    total: int
    result: FileResult


ProgressCallback = Callable[[Progress], None]


@dataclass
class PendingDocument:
    """A loaded and chunked document waiting for its embeddings."""

    path: Path
    source_path: str
    digest: str
    size: int
    doc: LoadedDocument
    drafts: list[ChunkDraft]
    origin: str = "cli"  # cli | upload | beir: only 'cli' documents are ever pruned


def known_documents(engine: sa.Engine, component: str) -> dict[str, tuple[int, str]]:
    """source_path → (document id, content hash) for the documents of a component."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT id, source_path, content_hash FROM documents WHERE component = :c"),
            {"c": component},
        )
        return {row.source_path: (row.id, row.content_hash) for row in rows}


def index_paths(
    paths: Iterable[Path | str],
    component: str,
    *,
    base: Path | str | None = None,
    prune: bool = False,
    force: bool = False,
    origin: str = "cli",
    settings: Settings | None = None,
    progress: ProgressCallback | None = None,
) -> IngestReport:
    """Index files and folders into `component`; see the module docstring.

    `force` re-indexes files even when their content hash is unchanged (after a loader
    or chunking change); the old chunks are still replaced atomically. `prune` then
    removes documents whose files are gone, under the rules of docsassistant.prune.
    `origin` records who indexed the documents (the upload page passes "upload").
    """
    settings = settings or get_settings()
    component = validate_component(component)
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {ORIGINS}, got {origin!r}")
    paths = list(paths)
    base_dir = Path(base) if base is not None else Path.cwd()
    if base_dir.exists() and not base_dir.is_dir():
        raise ValueError(f"--base must be a folder; {base_dir} is a file. Pass the folder that holds it.")
    engine = open_store(settings)
    files, refused = collect_files(paths)
    report = IngestReport(component, [_refused_result(r, base_dir) for r in refused])
    total = len(files) + len(refused)
    known = known_documents(engine, component)
    known_paths_by_hash = {digest: path for path, (_, digest) in known.items()}
    copies: list[tuple[str, str]] = []  # (new source path, known path with the same content)
    named: dict[str, Path] = {}  # source path -> the batch's file stored under it

    def finish(result: FileResult) -> None:
        report.results.append(result)
        if progress:
            progress(Progress(len(report.results), total, result))

    pending: list[PendingDocument] = []
    for path in files:
        name = str(path)
        try:
            source_path = name = source_path_of(path, base_dir)
            if (first := named.get(source_path)) is None:
                named[source_path] = path
            else:
                if first.resolve() == path.resolve():  # one file listed twice (or a link to it)
                    finish(
                        FileResult(source_path, "unchanged", reason=f"Listed twice ({first}); indexed once.")
                    )
                    continue
                # Names that differ only in removed control/bidi characters: the second file
                # would silently replace the first one's chunks.
                raise LoaderError(
                    f"{path} would be stored as {source_path}, the name {first} already has in this "
                    "batch (the names differ only in control or bidi characters); rename one of them."
                )
            if (size := path.stat().st_size) > MAX_FILE_BYTES:
                raise LoaderError(
                    f"{path.name} is {size / 1e6:,.0f} MB; the limit is {MAX_FILE_BYTES / 1e6:,.0f} MB per file."
                )
            data = read_regular_file(path)  # never blocks on a FIFO
            digest = hashlib.sha256(data).hexdigest()
            existing = known.get(source_path)
            if existing and existing[1] == digest and not force:
                finish(FileResult(source_path, "unchanged"))
                continue
            if existing is None and digest in known_paths_by_hash:
                copies.append((source_path, known_paths_by_hash[digest]))
            FOREGROUND.wait_turn()  # reading and chunking hold the GIL: not while a search runs
            doc = load_document(path)
            drafts = chunk_document(doc, settings.chunk_size, settings.chunk_overlap)
            if not drafts:
                raise LoaderError(f"{path.name} has no text to index.")
            check_chunk_count(path.name, len(drafts))
        except (LoaderError, OSError) as exc:
            finish(FileResult(name, "failed", reason=str(exc) + _kept(known, name)))
            continue
        except Exception as exc:  # a loader bug must not cost the rest of the batch
            reason = f"Unexpected {type(exc).__name__} while reading: {exc}"
            finish(FileResult(name, "failed", reason=reason + _kept(known, name)))
            continue
        pending.append(PendingDocument(path, source_path, digest, len(data), doc, drafts, origin))
        if sum(len(p.drafts) for p in pending) >= EMBED_GROUP:
            embed_and_write(engine, component, pending, settings, finish, report.timings)
            pending = []
    embed_and_write(engine, component, pending, settings, finish, report.timings)

    if copies:
        report.notes.append(copies_note(copies))
    if prune:
        # A skipped FIFO or device is no file this run could not read: it does not refuse the prune.
        plan = plan_prune(engine, component, paths, base_dir, failed=len(report.by_status("failed")))
        report.notes.extend([plan.refused] if plan.refused else [])
        for source_path in apply_prune(engine, plan):
            finish(FileResult(source_path, "removed"))
    return report


def _refused_result(refused: Refused, base: Path) -> FileResult:
    """A path collect_files refused; a skipped one (found in a folder) is named by its source
    path like the folder's other files, a named one as it was typed."""
    name = refused.path
    if refused.skipped:
        with contextlib.suppress(LoaderError):  # outside the base: keep the path as found
            name = source_path_of(Path(refused.path), base)
    return FileResult(name, "skipped" if refused.skipped else "failed", reason=refused.reason)


def _kept(known: dict[str, tuple[int, str]], source_path: str) -> str:
    """Said after a failure when an earlier version of the file stays indexed and searchable."""
    return " The version indexed earlier is kept." if source_path in known else ""


def check_chunk_count(name: str, count: int) -> None:
    """Refuse a document with more chunks than MAX_CHUNKS_PER_DOCUMENT, saying what to do."""
    if count > MAX_CHUNKS_PER_DOCUMENT:
        raise LoaderError(
            f"{name} would make {count:,} chunks; the limit is {MAX_CHUNKS_PER_DOCUMENT:,} per document "
            "(indexing it would keep the embedder busy for minutes). Split it into smaller files."
        )


def embedding_text(title: str, section: str, content: str) -> str:
    """What the embedder sees: the chunk in the context of its document and section."""
    heading = f"{title} › {section}" if section else title
    return f"{heading}\n{content}"


def embed_and_write(
    engine: sa.Engine,
    component: str,
    pending: list[PendingDocument],
    settings: Settings,
    finish: Callable[[FileResult], None],
    timings: IngestTimings | None = None,
) -> None:
    """Embed the pending documents in one call, then write each in its own transaction."""
    if not pending:
        return
    timings = timings or IngestTimings()
    texts = [embedding_text(p.doc.title, d.section, d.content) for p in pending for d in p.drafts]
    start = time.perf_counter()
    embedder = get_embedder(settings)
    prepare_graph(settings)  # spaCy loads beside the embedding
    vectors = embedder.embed_documents(texts)
    timings.embed_chunks_s += time.perf_counter() - start
    offset = 0
    for item in pending:
        item_vectors = vectors[offset : offset + len(item.drafts)]
        offset += len(item.drafts)
        FOREGROUND.wait_turn()
        try:
            with engine.begin() as conn:
                start = time.perf_counter()
                doc_id, inserted = write_document(conn, component, item, item_vectors)
                written = time.perf_counter()
                write_graph(conn, doc_id, component, item, settings)
                timings.write_chunks_s += written - start
                timings.graph_write_s += time.perf_counter() - written
        except sa.exc.SQLAlchemyError as exc:
            if is_database_fault(exc):  # the server is gone: every later file would fail the same way
                raise
            finish(FileResult(item.source_path, "failed", reason=f"Database error: {exc.orig or exc}"))
            continue
        status = "added" if inserted else "updated"
        finish(FileResult(item.source_path, status, chunks=len(item.drafts)))
    start = time.perf_counter()
    timings.graph_entities_embedded += finish_graph(engine, settings)
    timings.graph_embed_s += time.perf_counter() - start


_UPSERT = sa.text(
    """
    INSERT INTO documents (component, source_path, title, content_hash, media_type,
                           size_bytes, chunk_count, origin, indexed_at)
    VALUES (:component, :source_path, :title, :content_hash, :media_type, :size, :n, :origin, now())
    ON CONFLICT (component, source_path) DO UPDATE SET
        title = EXCLUDED.title, content_hash = EXCLUDED.content_hash,
        media_type = EXCLUDED.media_type, size_bytes = EXCLUDED.size_bytes,
        chunk_count = EXCLUDED.chunk_count, origin = EXCLUDED.origin, indexed_at = now()
    RETURNING id, (xmax = 0) AS inserted"""
)


def write_document(
    conn: sa.Connection, component: str, item: PendingDocument, vectors: np.ndarray
) -> tuple[int, bool]:
    """Replace one document and its chunks (the caller's transaction makes it atomic).
    Returns its id and whether it was new: decided by the write itself (`xmax = 0` on an
    inserted row), so of two ingests of one file at once, the second says "updated"."""
    doc_id, inserted = conn.execute(
        _UPSERT,
        {
            "component": component,
            "source_path": item.source_path,
            "title": item.doc.title,
            "content_hash": item.digest,
            "media_type": item.doc.media_type,
            "size": item.size,
            "n": len(item.drafts),
            "origin": item.origin,
        },
    ).one()
    conn.execute(sa.text("DELETE FROM chunks WHERE document_id = :id"), {"id": doc_id})
    insert_chunks(conn, doc_id, component, item.drafts, vectors)
    return doc_id, inserted


def insert_chunks(
    conn: sa.Connection, doc_id: int, component: str, drafts: list[ChunkDraft], vectors: np.ndarray
) -> None:
    # COPY is the fastest way into PostgreSQL; vectors go in pgvector's text form.
    raw = conn.connection.driver_connection
    with (
        raw.cursor() as cur,
        cur.copy(
            "COPY chunks (document_id, component, ordinal, section, content, search_terms, embedding) "
            "FROM STDIN"
        ) as copy,
    ):
        for draft, vector in zip(drafts, vectors, strict=True):
            copy.write_row(
                (
                    doc_id,
                    component,
                    draft.ordinal,
                    draft.section,
                    draft.content.replace("\x00", ""),
                    code_terms(f"{draft.section}\n{draft.content}"),
                    vector_literal(vector),
                )
            )
