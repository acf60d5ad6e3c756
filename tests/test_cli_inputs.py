"""Search queries and component names at the CLI go through docsassistant.inputs: NUL
and control characters are removed, over-long text is refused with the limit."""

from __future__ import annotations

from pathlib import Path

from conftest import write
from typer.testing import CliRunner

from docsassistant.cli import app
from docsassistant.inputs import MAX_QUERY_CHARS

runner = CliRunner()


def test_nul_in_query_and_component_is_stripped(clean_db, tmp_path: Path) -> None:
    write(tmp_path / "hnsw.md", "# HNSW\n\n## Query options\n\nSET hnsw.ef_search = 100 raises recall.")
    result = runner.invoke(app, ["ingest", str(tmp_path), "-c", "de\x00mo", "--base", str(tmp_path)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["search", "ef_\x00search", "-c", "demo\x00", "--json"])
    assert result.exit_code == 0, result.output
    assert "hnsw.md" in result.stdout


def test_over_long_query_and_component_are_refused_with_the_limit(clean_db) -> None:
    result = runner.invoke(app, ["search", "x" * (MAX_QUERY_CHARS + 1)])
    assert result.exit_code == 1 and f"limit is {MAX_QUERY_CHARS:,}" in result.output
    result = runner.invoke(app, ["documents", "list", "-c", "c" * 65])
    assert result.exit_code == 1 and "component name" in result.output
