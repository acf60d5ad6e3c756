"""Re-embedding after a model change, and several processes sharing the embedded server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from conftest import entity_index_options, write

from docsassistant.embeddings import embedder_identity
from docsassistant.ingest import index_paths
from docsassistant.reindex import reindex
from docsassistant.search import search_docs
from docsassistant.store import StoreModelMismatch, check_model, stored_model


def test_reindex_rebuilds_embeddings_and_records_the_model(clean_db, settings, tmp_path: Path) -> None:
    write(tmp_path / "a.md", "# Alpha\n\n## Beta\n\nThe gamma setting tunes delta.")
    index_paths([tmp_path], "re", base=tmp_path)
    with clean_db.begin() as conn:
        before = conn.execute(sa.text("SELECT embedding::text FROM chunks")).scalar()
        # Pretend another model built the store, and spoil the vectors.
        conn.execute(sa.text("UPDATE store_meta SET value = 'old-model' WHERE key = 'embedding_model'"))
        conn.execute(sa.text("UPDATE chunks SET embedding = array_fill(0.01, ARRAY[384])::vector"))
    try:
        with pytest.raises(StoreModelMismatch, match="docsassistant reindex"):
            check_model(clean_db, settings)
        assert reindex(settings) == 1
        check_model(clean_db, settings)  # no longer raises
        assert stored_model(clean_db)[:2] == ("all-MiniLM-L6-v2", 384)
        with clean_db.connect() as conn:
            after = conn.execute(sa.text("SELECT embedding::text FROM chunks")).scalar()
            index = conn.execute(sa.text("SELECT to_regclass('ix_chunks_embedding_hnsw')")).scalar()
            entity_options = entity_index_options(conn)
        assert after == before and index is not None
        # reembed_entities rebuilt the entity index with migration 0010's options.
        assert entity_options == ["m=8", "ef_construction=32"]
        assert search_docs("gamma setting", "re", 1, mode="dense")[0]["source_path"] == "a.md"
    finally:
        with clean_db.begin() as conn:
            conn.execute(
                sa.text("UPDATE store_meta SET value = 'all-MiniLM-L6-v2' WHERE key = 'embedding_model'")
            )


def test_reindex_moves_a_store_to_the_configured_embedder(clean_db, settings, tmp_path: Path) -> None:
    """A store embedded with another embedder (e.g. torch, the default before `onnx`) is
    refused until `reindex`, which re-embeds it and records the configured identity."""
    configured = embedder_identity(settings)
    other = "torch" if settings.embedder != "torch" else "onnx"
    write(tmp_path / "b.md", "# Epsilon\n\nThe zeta option limits eta.")
    index_paths([tmp_path], "switch", base=tmp_path)
    with clean_db.begin() as conn:
        before = conn.execute(sa.text("SELECT embedding::text FROM chunks")).scalar()
        conn.execute(
            sa.text("UPDATE store_meta SET value = :v WHERE key = 'embedder'"),
            {"v": embedder_identity(settings.model_copy(update={"embedder": other}))},
        )
        conn.execute(sa.text("UPDATE chunks SET embedding = array_fill(0.01, ARRAY[384])::vector"))
    try:
        with pytest.raises(StoreModelMismatch, match=rf"reindex.*DOCSASSISTANT_EMBEDDER={other}\."):
            check_model(clean_db, settings)
        assert reindex(settings) == 1
        check_model(clean_db, settings)  # no longer raises
        assert stored_model(clean_db) == ("all-MiniLM-L6-v2", 384, configured)
        with clean_db.connect() as conn:
            assert conn.execute(sa.text("SELECT embedding::text FROM chunks")).scalar() == before
    finally:
        with clean_db.begin() as conn:
            conn.execute(
                sa.text("UPDATE store_meta SET value = :v WHERE key = 'embedder'"), {"v": configured}
            )


def test_another_process_shares_the_embedded_server(clean_db, tmp_path: Path) -> None:
    write(tmp_path / "shared.md", "# Shared\n\nIndexed by a child process.")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    cmd = [
        sys.executable,
        "-m",
        "docsassistant",
        "ingest",
        str(tmp_path),
        "-c",
        "child",
        "--base",
        str(tmp_path),
    ]
    child = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    # The child has exited; the server it attached to is still ours and still answers.
    with clean_db.connect() as conn:
        paths = (
            conn.execute(sa.text("SELECT source_path FROM documents WHERE component = 'child'"))
            .scalars()
            .all()
        )
    assert paths == ["shared.md"]
