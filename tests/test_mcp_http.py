"""The MCP server over streamable HTTP (a child process on a free loopback port), with keys."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fake_ollama import FakeOllama
from mcp import MCPError
from mcp_helpers import (
    BETA_COMPONENTS,
    SECRET_WORD,
    assert_nothing_leaks,
    error_text,
    free_port,
    http_client,
    index_two_components,
    result_data,
    start_http_server,
)

from docsassistant.mcp.call_log import recent_calls
from docsassistant.mcp.keys import add_key, revoke_key

# ask_docs runs a whole agent turn: a subset of the variants keeps the test short.
ASK_COMPONENTS = ["beta", " beta ", "BETA", "%", "alpha' OR component = 'beta", "", None]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    },
}


@pytest.fixture(scope="module")
def two_components(engine, embedder, tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    return index_two_components(engine, tmp_path_factory.mktemp("mcp-http-docs"))


@pytest.fixture(scope="module")
def server_url(two_components: dict[str, int]) -> Iterator[str]:
    port = free_port()
    with FakeOllama(mode="deterministic") as fake:  # the child's agent turns talk to it
        child = start_http_server(port, {**os.environ, "PYTHONWARNINGS": "ignore", "OLLAMA_HOST": fake.url})
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            child.terminate()
            child.wait(timeout=20)


def calls(url: str, key: str | None, attempts: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def scenario() -> list[Any]:
        async with http_client(url, key) as client:
            return [await client.call_tool(tool, args) for tool, args in attempts]

    return asyncio.run(scenario())


def post_initialize(url: str, authorization: str | None) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    return httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)


def test_missing_bad_and_revoked_keys_are_refused(server_url: str) -> None:
    key = add_key("http-temp", ["alpha"]).secret
    assert post_initialize(server_url, None).status_code == 401
    for bad in ("Bearer da_not-a-key", "Bearer " + key + "x", "Bearer " + key.upper(), "Basic " + key, key):
        assert post_initialize(server_url, bad).status_code == 401, bad
    assert post_initialize(server_url, f"Bearer {key}").status_code == 200
    with pytest.raises(ExceptionGroup) as refused:  # the client's task group carries the 401
        calls(server_url, "da_not-a-key", [("list_components", {})])
    assert refused.group_contains(MCPError, match="error response")
    assert result_data(calls(server_url, key, [("list_components", {})])[0]) == ["alpha"]

    async def revoked_mid_session() -> tuple[Any, BaseException | None]:
        async with http_client(server_url, key) as client:
            before = await client.call_tool("search_docs", {"query": "cosine distance"})
            revoke_key("http-temp")
            try:
                after = await client.call_tool("search_docs", {"query": "cosine distance"})
                return before, AssertionError(f"revoked key still answered: {after}")
            except MCPError as exc:  # the next request got a 401
                return before, None if "error response" in str(exc) else exc

    before, failure = asyncio.run(revoked_mid_session())  # type: ignore[misc]
    assert not before.is_error and failure is None
    assert post_initialize(server_url, f"Bearer {key}").status_code == 401
    # Presented keys that were refused are in the call log, by fingerprint, never in clear.
    refused_rows = [r for r in recent_calls(400) if r["tool"] == "(authentication)"]
    assert {r["caller"] for r in refused_rows} == {"refused key", "http-temp (revoked)"}
    revoked = hashlib.sha256(key.encode()).hexdigest()[:12]
    assert any(
        r["caller"] == "http-temp (revoked)" and r["arguments"] == {"key_sha256_prefix": revoked}
        for r in refused_rows
    )
    assert key not in json.dumps([r["arguments"] for r in recent_calls(400)], default=str)


def test_alpha_key_cannot_read_beta_over_http(server_url: str, two_components: dict[str, int]) -> None:
    key = add_key("http-alpha", ["alpha"]).secret
    attempts: list[tuple[str, dict[str, Any]]] = []
    for component in [*BETA_COMPONENTS, None]:
        attempts.append(
            ("search_docs", {"query": f"{SECRET_WORD} store defaults", "component": component, "k": 50})
        )
        attempts.append(("count_chunks", {"component": component}))
    for component in ASK_COMPONENTS:
        attempts.append(
            ("ask_docs", {"question": f"What is the {SECRET_WORD} store?", "component": component})
        )
    attempts.append(("search_docs", {"query": SECRET_WORD, "k": 50}))
    results = calls(server_url, key, attempts)
    assert_nothing_leaks(attempts, results, two_components["alpha"])
    print(f"cross-component attempts over HTTP: {len(attempts)}, none read beta")
    beta_named = [
        r for (_, a), r in zip(attempts, results, strict=True) if (a.get("component") or "").strip() == "beta"
    ]
    assert len(beta_named) == 6 and all("may not read component 'beta'" in error_text(r) for r in beta_named)
    asked = [
        result_data(r)
        for (t, _), r in zip(attempts, results, strict=True)
        if t == "ask_docs" and not r.is_error
    ]
    assert asked and all(record["status"] == "completed" for record in asked)
    revoke_key("http-alpha")


def test_every_call_is_logged_with_its_caller(server_url: str) -> None:
    key = add_key("http-logged", ["alpha", "beta"]).secret
    results = calls(
        server_url,
        key,
        [
            ("search_docs", {"query": "cosine distance", "k": 2}),
            ("search_docs", {"query": ""}),
            ("count_chunks", {}),
        ],
    )
    assert "The search query is empty" in error_text(results[1])
    assert "Error executing tool search_docs: The search query is empty" in error_text(results[1])
    logged = [r for r in recent_calls(10) if r["caller"] == "http-logged"]
    assert [r["tool"] for r in logged] == ["count_chunks", "search_docs", "search_docs"]
    count, empty, search = logged
    assert search["arguments"] == {"query": "cosine distance", "component": None, "k": 2}
    assert search["result_count"] == 2 and search["error"] is None and search["duration_ms"] > 0
    assert "query is empty" in empty["error"] and empty["result_count"] is None
    assert count["result_count"] == result_data(results[2])["chunks"]
    revoke_key("http-logged")
