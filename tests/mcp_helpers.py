"""Two components to keep apart, keys for them, and the official MCP client over each transport."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from conftest import write
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from docsassistant.ingest import index_paths

SECRET_WORD = "zanzibarite"  # only in the beta component; callers ask for it
# Only in beta's chunk and never in a question, so seeing one means beta's text got out.
BETA_ONLY = ("quokkaflux", "Beta secret store", "secret.md")

# Every way we could think of to reach beta with a key for alpha only.
BETA_COMPONENTS = [
    "beta",
    "BETA",
    " beta ",
    "Beta\t",
    "beta\x00",
    "\u202ebeta",
    "beta' OR '1'='1",
    "alpha' OR component = 'beta",
    "alpha,beta",
    "{alpha,beta}",
    "beta%",
    "%",
    "_eta",
    "*",
    "beta; SELECT * FROM chunks",
    "alpha OR beta",
    "ALL",
    "",
]


def index_two_components(engine: sa.Engine, root: Path) -> dict[str, int]:
    """alpha: pgvector docs; beta: a secret word no alpha chunk holds. Chunk counts per component."""
    with engine.begin() as conn:
        conn.execute(sa.text("TRUNCATE documents, chunks, conversations, share_links CASCADE"))
    write(
        root / "alpha" / "ops.md", "# pgvector\n\n## Operators\n\nThe <=> operator computes cosine distance."
    )
    write(root / "alpha" / "index.md", "# Indexes\n\n## HNSW\n\nHNSW indexes trade recall for speed.")
    write(
        root / "beta" / "secret.md",
        f"# Beta secret store\n\n## Defaults\n\nThe {SECRET_WORD} store uses cosine distance; quokkaflux is on.",
    )
    index_paths([root / "alpha"], "alpha", base=root / "alpha")
    index_paths([root / "beta"], "beta", base=root / "beta")
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT component, count(*) FROM chunks GROUP BY 1")).all()
    return dict(rows)


def leaks_beta(payload: Any) -> bool:
    text = json.dumps(payload) if not isinstance(payload, str) else payload
    return any(marker in text for marker in BETA_ONLY)


def assert_nothing_leaks(attempts: list[tuple[str, dict]], results: list[Any], alpha_chunks: int) -> None:
    """Every attempt either failed or returned nothing of beta (a count: 0 or alpha's own)."""
    for (tool, args), result in zip(attempts, results, strict=True):
        if result.is_error:
            continue
        data = result_data(result)
        assert not leaks_beta(data), (tool, args, data)
        if tool == "count_chunks":
            assert data["chunks"] in (0, alpha_chunks), (args, data)


def result_data(result: Any) -> Any:
    """A tool result's structured value (the SDK wraps lists as {"result": [...]})."""
    payload = result.structured_content
    if payload is None:
        return json.loads(result.content[0].text)
    return payload["result"] if set(payload) == {"result"} else payload


def error_text(result: Any) -> str:
    assert result.is_error, result
    return result.content[0].text


def stdio_client(key: str | None = None) -> Client:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("DOCSASSISTANT_MCP_KEY", None)
    if key:
        env["DOCSASSISTANT_MCP_KEY"] = key
    params = StdioServerParameters(command=sys.executable, args=["-m", "docsassistant", "mcp"], env=env)
    return Client(params)


def http_client(url: str, key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return Client(streamable_http_client(url, http_client=create_mcp_http_client(headers=headers)))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_http_server(port: int, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`docsassistant mcp --http --port PORT` in a child process, once it accepts connections."""
    cmd = [sys.executable, "-m", "docsassistant", "mcp", "--http", "--port", str(port)]
    child = subprocess.Popen(
        cmd,
        env=env or {**os.environ, "PYTHONWARNINGS": "ignore"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError(
                f"the MCP server exited: {child.stderr.read().decode() if child.stderr else ''}"
            )
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return child
        except OSError:
            time.sleep(0.2)
    child.kill()
    raise RuntimeError("the MCP server did not start listening within 90 s")
