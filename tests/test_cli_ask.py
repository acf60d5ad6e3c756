"""`docsassistant ask`: JSON output and continuing a thread."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write
from typer.testing import CliRunner

from docsassistant.agent.records import SCHEMA_VERSION, TurnRecord
from docsassistant.cli import app
from docsassistant.ingest import index_paths

runner = CliRunner()


def test_ask_json_and_continue_thread(clean_db, cooperative_ollama, tmp_path: Path) -> None:
    write(
        tmp_path / "hnsw.md",
        "# HNSW\n\n## Query options\n\nSet hnsw.ef_search to raise recall at query time.",
    )
    index_paths([tmp_path], "pg", base=tmp_path)

    result = runner.invoke(app, ["ask", "How do I raise hnsw.ef_search recall?", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == set(TurnRecord.model_fields)  # the whole record: the contract
    assert out["status"] == "completed" and out["schema_version"] == SCHEMA_VERSION
    assert out["citations"][0]["source_path"] == "hnsw.md"
    assert out["verification"]["status"] == "grounded"
    assert out["model_calls"] <= 4

    second = runner.invoke(app, ["ask", "thanks!", "--thread", out["thread_id"]])
    assert second.exit_code == 0, second.output
    last_request = cooperative_ollama.requests[-1]["messages"]
    contents = " ".join(m.get("content", "") for m in last_request)
    assert "How do I raise hnsw.ef_search recall?" in contents  # the model sees the history


def test_ask_without_ollama_names_the_command(clean_db, monkeypatch) -> None:
    from docsassistant.config import get_settings

    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    get_settings.cache_clear()
    result = runner.invoke(app, ["ask", "anything"])
    get_settings.cache_clear()
    assert result.exit_code == 1
    assert "ollama serve" in result.output


def test_ask_without_ollama_still_shows_what_a_search_finds(clean_db, monkeypatch, tmp_path: Path) -> None:
    """The chat page shows search results when the model is down; the CLI only said what to
    start (QA round 7b, F1a). Now it shows the passages too, and `--json` carries them."""
    from docsassistant.config import get_settings

    write(
        tmp_path / "hnsw.md",
        "# HNSW\n\n## Query options\n\nSet hnsw.ef_search to raise recall at query time.",
    )
    index_paths([tmp_path], "pg", base=tmp_path)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    get_settings.cache_clear()
    try:
        plain = runner.invoke(app, ["ask", "How do I raise hnsw.ef_search recall?"])
        as_json = runner.invoke(app, ["ask", "How do I raise hnsw.ef_search recall?", "--json"])
    finally:
        get_settings.cache_clear()
    assert plain.exit_code == 1 and "ollama serve" in plain.stderr
    assert "1. hnsw.md › Query options" in plain.stdout and "hnsw.ef_search" in plain.stdout
    out = json.loads(as_json.stdout)
    assert as_json.exit_code == 1 and "ollama serve" in out["error"]
    assert out["hits"][0]["source_path"] == "hnsw.md"


def test_ask_with_an_unknown_component_is_refused_before_any_model_call(
    clean_db, cooperative_ollama, tmp_path: Path
) -> None:
    """A mistyped `--component` cost two model calls and ended "no search could run"
    (independent QA, round 5): it is refused up front, naming the known components."""
    write(tmp_path / "a.md", "# A\n\nSome text about caches.")
    index_paths([tmp_path], "pg", base=tmp_path)
    before = len(cooperative_ollama.requests)
    result = runner.invoke(app, ["ask", "What is cache_ttl?", "--component", "no-such-comp"])
    assert result.exit_code == 1
    assert "Unknown component 'no-such-comp'. Known components: pg." in result.output
    assert len(cooperative_ollama.requests) == before


def test_a_turn_for_an_unknown_component_writes_nothing(clean_db, cooperative_ollama, tmp_path: Path) -> None:
    """The check is the runner's (the chat page and MCP `ask_docs` go through it too): the
    turn is refused before Ollama is called or anything is stored."""
    import pytest

    from docsassistant.agent.runner import run_turn
    from docsassistant.conversations import list_conversations
    from docsassistant.search import SearchError

    write(tmp_path / "a.md", "# A\n\nSome text about caches.")
    index_paths([tmp_path], "pg", base=tmp_path)
    before = len(cooperative_ollama.requests)
    with pytest.raises(SearchError, match="Unknown component 'nope'"):
        run_turn("What is cache_ttl?", component="Nope")
    assert len(cooperative_ollama.requests) == before and list_conversations() == []


def test_a_hung_ollama_is_not_reported_as_not_running(clean_db, monkeypatch) -> None:
    """An Ollama that takes the connection but does not answer (a model loading, a stuck
    runner: ollama#8348, #7609) was reported "not reachable … Start it with `ollama serve`", though
    it runs (QA round 8b). A socket that accepts and never replies stands in for it."""
    import socket

    from docsassistant.config import get_settings

    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(4)
    monkeypatch.setenv("OLLAMA_HOST", f"http://127.0.0.1:{hung.getsockname()[1]}")
    get_settings.cache_clear()
    try:
        result = runner.invoke(app, ["ask", "anything"])
    finally:
        get_settings.cache_clear()
        hung.close()
    said = " ".join(result.output.split())
    assert result.exit_code == 1
    assert "is running but did not answer within 3 s" in said, said
    assert "Start it with" not in said
