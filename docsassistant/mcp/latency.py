"""`docsassistant mcp bench`: search_docs latency over MCP HTTP against the in-process call.

Starts `docsassistant mcp --http` as a child process on a free loopback port with a
temporary key (revoked at the end), then times each query both ways, alternating, so
load from other work on the machine falls on both sides alike.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from docsassistant.bench.measure import latency_summary, load_average
from docsassistant.evaluation import load_qa
from docsassistant.mcp.keys import add_key, revoke_key
from docsassistant.search import search_docs


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(port: int, timeout_s: float = 120) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "docsassistant", "mcp", "--http", "--port", str(port)]
    child = subprocess.Popen(cmd, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError(f"`docsassistant mcp --http` exited with code {child.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return child
        except OSError:
            time.sleep(0.2)
    child.kill()
    raise RuntimeError(f"`docsassistant mcp --http` did not listen within {timeout_s:.0f} s")


async def _measure(url: str, secret: str, queries: list[str], rounds: int, k: int) -> dict[str, list[float]]:
    headers = {"Authorization": f"Bearer {secret}"}
    samples: dict[str, list[float]] = {"in_process": [], "http": []}
    async with Client(
        streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    ) as client:
        for query in queries[:3]:  # warm-up: model load, connections, plans
            search_docs(query, None, k)
            await client.call_tool("search_docs", {"query": query, "k": k})
        for _ in range(rounds):
            for query in queries:
                started = time.perf_counter()
                search_docs(query, None, k)
                samples["in_process"].append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                result = await client.call_tool("search_docs", {"query": query, "k": k})
                samples["http"].append((time.perf_counter() - started) * 1000)
                if result.is_error:
                    raise RuntimeError(f"search_docs over HTTP failed: {result.content[0].text}")
    return samples


def bench_http_search(qa_path: Path | str, rounds: int = 5, k: int = 5) -> dict:
    """Latency figures (ms) of search_docs in-process and over MCP HTTP, and their p95 ratio."""
    queries = [q.question for q in load_qa(qa_path)]
    if not queries:
        raise ValueError(f"{qa_path} holds no questions.")
    name = f"bench-{uuid.uuid4().hex[:8]}"
    secret = add_key(name, None).secret
    port = _free_port()
    child = _start_server(port)
    try:
        samples = asyncio.run(_measure(f"http://127.0.0.1:{port}/mcp", secret, queries, rounds, k))
    finally:
        child.terminate()
        child.wait(timeout=30)
        revoke_key(name)
    in_process, http = latency_summary(samples["in_process"]), latency_summary(samples["http"])
    return {
        "queries": len(queries),
        "rounds": rounds,
        "k": k,
        "in_process": in_process,
        "http": http,
        "p95_ratio": http["p95_ms"] / in_process["p95_ms"],
        "p50_ratio": http["p50_ms"] / in_process["p50_ms"],
        "load_average": load_average(),
    }
