"""search_docs offered to other agents over MCP (in-process client)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from conftest import write
from mcp import Client

from docsassistant.ingest import index_paths
from docsassistant.mcp_server import server


def test_mcp_search_docs_tool(clean_db, tmp_path: Path) -> None:
    write(tmp_path / "pg.md", "# pgvector\n\n## Operators\n\nThe <=> operator computes cosine distance.")
    index_paths([tmp_path], "vectors", base=tmp_path)

    async def scenario() -> tuple[list[str], object]:
        async with Client(server) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            result = await client.call_tool("search_docs", {"query": "cosine distance operator", "k": 1})
            return tools, result

    tools, result = asyncio.run(scenario())
    assert {"search_docs", "components"} <= set(tools)
    assert not result.is_error
    payload = result.structured_content or json.loads(result.content[0].text)
    hits = payload["result"] if isinstance(payload, dict) and "result" in payload else payload
    assert hits[0]["source_path"] == "pg.md"
    assert hits[0]["section"] == "Operators"
