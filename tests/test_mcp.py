"""The MCP tools in-process and over stdio: real errors, input caps, keys enforced in the query."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport
from mcp_helpers import (
    BETA_COMPONENTS,
    SECRET_WORD,
    assert_nothing_leaks,
    error_text,
    index_two_components,
    leaks_beta,
    result_data,
    stdio_client,
)

from docsassistant.mcp.call_log import Caller, log_call, recent_calls
from docsassistant.mcp.keys import add_key, find_key, list_keys, revoke_key
from docsassistant.mcp.server import build_server
from docsassistant.readonly_sql import count_chunks
from docsassistant.search import SearchError, search_docs


@pytest.fixture(scope="module")
def two_components(engine, embedder, tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    return index_two_components(engine, tmp_path_factory.mktemp("mcp-docs"))


def call(client: Client, tool: str, args: dict[str, Any]) -> Any:
    async def scenario() -> Any:
        async with client:
            return await client.call_tool(tool, args)

    return asyncio.run(scenario())


def test_query_level_enforcement(two_components: dict[str, int]) -> None:
    """The functions the tools call filter in SQL: no argument widens the allowed set."""
    for component in ["beta", "BETA", " Beta ", None]:
        try:
            hits = search_docs(f"{SECRET_WORD} store defaults", component, 10, allowed_components=["alpha"])
        except SearchError as exc:
            assert "beta" not in str(exc).split("Known components:")[-1]
            continue
        assert hits and component is None
        assert {h["component"] for h in hits} == {"alpha"}
    assert count_chunks(None, allowed_components=["alpha"])["chunks"] == two_components["alpha"]
    assert count_chunks("beta", allowed_components=["alpha"])["chunks"] == 0
    assert count_chunks(None)["chunks"] == two_components["alpha"] + two_components["beta"]


def test_in_process_tools_and_real_error_text(two_components: dict[str, int]) -> None:
    server = build_server()

    async def scenario() -> list[Any]:
        async with Client(server) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"search_docs", "count_chunks", "list_components", "ask_docs"}
            return [
                await client.call_tool("search_docs", {"query": "cosine distance operator", "k": 1}),
                await client.call_tool("list_components", {}),
                await client.call_tool("count_chunks", {"component": "Alpha"}),
                await client.call_tool("search_docs", {"query": "  \x00 "}),
                await client.call_tool("search_docs", {"query": "x" * 1001}),
                await client.call_tool("search_docs", {"query": "cosine", "component": "gamma"}),
                await client.call_tool("search_docs", {"query": "cosine", "k": 500}),
                await client.call_tool("search_docs", {"query": "cos\x00ine distance", "k": 1}),
                await client.call_tool("count_chunks", {"component": "x'; drop table chunks; --"}),
            ]

    hit, components, counted, empty, too_long, unknown, big_k, nul, count_unknown = asyncio.run(scenario())
    # A mistyped component is refused like search_docs refuses it, not counted as 0 (QA round 7b, F3b).
    assert 'Unknown component "x\'; drop table chunks; --". Known components: alpha, beta.' in error_text(
        count_unknown
    )
    assert result_data(hit)[0]["source_path"] == "ops.md"
    assert result_data(components) == ["alpha", "beta"]
    assert result_data(counted)["chunks"] == two_components["alpha"]
    assert "The search query is empty" in error_text(empty)
    assert "the limit is 1,000" in error_text(too_long)
    assert "Unknown component 'gamma'" in error_text(unknown)
    assert "k must be an integer from 1 to 50" in error_text(big_k)
    assert not nul.is_error and result_data(nul)
    logged = recent_calls(9)[1:]
    assert [r["tool"] for r in logged][:3] == ["search_docs"] * 3
    assert logged[0]["caller"] == "local (stdio)" and logged[0]["result_count"] == 1
    assert "\x00" not in logged[0]["arguments"]["query"]
    assert "Unknown component" in logged[2]["error"]


def test_arguments_of_the_wrong_type_are_logged_and_answered_in_plain_words(
    two_components: dict[str, int],
) -> None:
    """The SDK refuses a list `component` or `k: "five"` before our tool runs: those calls
    left no row in the call log (a probing caller left no trace) and came back as a pydantic
    dump with a URL (QA round 7b, M1c/M2b). An unknown tool is logged the same way."""
    server = build_server()
    attempts = [
        ("search_docs", {"query": "x", "component": ["beta"]}),
        ("search_docs", {"query": "x", "k": "five"}),
        ("count_chunks", {"component": {"x": "beta"}}),
        ("search_docs", {}),
        ("no_such_tool", {"a": 1}),
    ]

    async def scenario() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(tool, args) for tool, args in attempts]

    results = asyncio.run(scenario())
    texts = [error_text(r) for r in results]
    assert all(r.is_error for r in results)
    assert texts[0] == "Invalid arguments for search_docs: `component`: Input should be a valid string."
    assert "`k`: Input should be a valid integer" in texts[1] and "`query`: Field required" in texts[3]
    assert texts[4].startswith("Unknown tool 'no_such_tool'. Tools: ")
    assert not any("pydantic.dev" in t or "beta" in t for t in texts)
    logged = recent_calls(len(attempts))[::-1]
    assert [(r["tool"], r["arguments"]) for r in logged] == attempts
    assert [r["error"] for r in logged] == texts and {r["caller"] for r in logged} == {"local (stdio)"}


def test_a_short_stdio_session_exits_cleanly(two_components: dict[str, int], tmp_path) -> None:
    """A session whose only call is refused ends while the server's warm-up is still inside
    ONNX Runtime or spaCy: C++ aborted the exiting process ("terminate called without an active
    exception", QA round 7b M2c, 2 of 2 tries). The server's start-up INFO lines (the embedded
    database, Alembic) also filled the client's log."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "DOCSASSISTANT_MCP_KEY": "da_not_a_key"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "docsassistant", "mcp"], env=env)
    log_path = tmp_path / "server-stderr.txt"

    async def scenario() -> Any:
        with log_path.open("w") as errlog:
            async with Client(stdio_transport(params, errlog=errlog)) as client:
                return await client.call_tool("list_components", {})

    result = asyncio.run(scenario())
    assert result.is_error and "unknown or revoked" in error_text(result)
    stderr = log_path.read_text()
    assert "terminate called" not in stderr and "INFO" not in stderr, stderr[-2000:]


def test_keys_are_hashed_listed_and_revoked(two_components: dict[str, int]) -> None:
    created = add_key("hash-check", [" Alpha ", "alpha"])
    assert created.key.components == ["alpha"]
    assert find_key(created.secret) is not None
    assert find_key(created.secret + "x") is None and find_key("not-a-key") is None
    stored = {k.name for k in list_keys()}
    assert "hash-check" in stored
    from docsassistant.store import open_store

    with open_store().connect() as conn:
        import sqlalchemy as sa

        hashes = (
            conn.execute(sa.text("SELECT secret_sha256 FROM mcp_keys WHERE name = 'hash-check'"))
            .scalars()
            .all()
        )
    assert created.secret not in hashes and len(hashes[0]) == 64
    with pytest.raises(ValueError, match="exists"):
        add_key("hash-check", ["alpha"])
    with pytest.raises(ValueError, match="at least one component"):
        add_key("empty", [])
    # Independent QA round 4: a key for a name no ingest accepts could never read anything.
    with pytest.raises(ValueError, match="Invalid component name"):
        add_key("unicode", ["Ünïcode-文档"])
    revoke_key("hash-check")
    assert find_key(created.secret) is None
    with pytest.raises(ValueError, match="No active key"):
        revoke_key("hash-check")


def test_stdio_key_for_alpha_cannot_read_beta(two_components: dict[str, int]) -> None:
    """Over stdio with DOCSASSISTANT_MCP_KEY: every cross-component attempt is refused."""
    key = add_key("stdio-alpha", ["alpha"]).secret
    attempts: list[tuple[str, dict[str, Any]]] = []
    for component in [*BETA_COMPONENTS, None]:
        attempts.append(
            ("search_docs", {"query": f"{SECRET_WORD} store defaults", "component": component, "k": 50})
        )
        attempts.append(("count_chunks", {"component": component}))
    attempts.append(("search_docs", {"query": "Beta secret store"}))
    attempts.append(("list_components", {}))

    async def scenario() -> list[Any]:
        async with stdio_client(key) as client:
            return [await client.call_tool(tool, args) for tool, args in attempts]

    results = asyncio.run(scenario())
    assert_nothing_leaks(attempts, results, two_components["alpha"])
    explicit = [
        r for (t, a), r in zip(attempts, results, strict=True) if (a.get("component") or "").strip() == "beta"
    ]
    assert explicit and all("may not read component 'beta'" in error_text(r) for r in explicit)
    assert result_data(results[-1]) == ["alpha"]
    revoke_key("stdio-alpha")

    async def after_revoke() -> Any:
        async with stdio_client(key) as client:
            return await client.call_tool("search_docs", {"query": "cosine"})

    assert "unknown or revoked" in error_text(asyncio.run(after_revoke()))


def test_ask_docs_stays_inside_the_key(two_components: dict[str, int], cooperative_ollama) -> None:
    """ask_docs runs a real agent turn (fake model at its HTTP boundary); its searches and
    counts are limited to the key's components whatever the question or model asks."""
    key = add_key("ask-alpha", ["alpha"]).secret

    async def scenario() -> list[Any]:
        async with stdio_client(key) as client:
            return [
                await client.call_tool("ask_docs", {"question": f"What is the {SECRET_WORD} store default?"}),
                await client.call_tool(
                    "ask_docs", {"question": "How many chunks does the beta component have?"}
                ),
                await client.call_tool("ask_docs", {"question": "What does the <=> operator compute?"}),
                await client.call_tool("ask_docs", {"question": "Anything?", "component": "BETA "}),
                await client.call_tool("ask_docs", {"question": "x" * 5000}),
            ]

    secret_q, count_q, alpha_q, beta_component, too_long = asyncio.run(scenario())
    for result in (secret_q, count_q, alpha_q):
        record = result_data(result)
        assert record["status"] == "completed", record
        assert not leaks_beta(record), record
    # beta's chunks are not counted: to this key, beta is a component that does not exist
    assert result_data(count_q)["answer"] == "The index has no component 'beta'. Known components: alpha."
    alpha = result_data(alpha_q)
    assert alpha["citations"] and {c["component"] for c in alpha["citations"]} == {"alpha"}
    assert "may not read component 'beta'" in error_text(beta_component)
    assert "the limit is 4,000" in error_text(too_long)
    revoke_key("ask-alpha")


def test_keys_cli_shows_the_secret_once(two_components: dict[str, int]) -> None:
    from typer.testing import CliRunner

    from docsassistant.cli import app

    runner = CliRunner()
    added = runner.invoke(app, ["mcp", "keys", "add", "cli-bot", "--components", "alpha, BETA"])
    assert added.exit_code == 0, added.output
    secret = added.output.strip().splitlines()[-1]
    assert secret.startswith("da_") and "alpha, beta" in added.output
    assert find_key(secret).components == ["alpha", "beta"]
    listed = runner.invoke(app, ["mcp", "keys", "list"])
    assert "cli-bot  alpha, beta" in listed.output and secret not in listed.output
    neither = runner.invoke(app, ["mcp", "keys", "add", "x"])
    assert neither.exit_code != 0 and "--all-components" in neither.output
    assert runner.invoke(app, ["mcp", "keys", "revoke", "cli-bot"]).exit_code == 0
    again = runner.invoke(app, ["mcp", "keys", "revoke", "cli-bot"])
    assert again.exit_code == 1 and "No active key named 'cli-bot'" in again.output
    assert find_key(secret) is None
    log_call(
        Caller(name="cli-bot"),
        "count_chunks",
        {"component": "alpha"},
        result_count=2,
        error=None,
        duration_ms=1.5,
    )
    shown = runner.invoke(app, ["mcp", "calls", "--limit", "1"]).output
    assert "cli-bot" in shown and "count_chunks" in shown and "1.5 ms" in shown
