"""`search_docs` for other agents, as an MCP tool (`docsassistant mcp` serves it on stdio)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from docsassistant.search import list_components
from docsassistant.search import search_docs as _search_docs

server = MCPServer(
    "docsassistant",
    instructions="Hybrid (vector + full-text) search over the team's indexed documentation.",
)


@server.tool()
def search_docs(query: str, component: str | None = None, k: int = 5) -> list[dict]:
    """Search the indexed documentation; returns the best chunks, best first.

    Each hit has source_path, title, section, content, score (reciprocal rank fusion)
    and chunk_id. `component` restricts the search to one documentation component.
    """
    hits = _search_docs(query, component, k)
    keep = ("chunk_id", "source_path", "title", "component", "section", "content", "score")
    return [{key: hit[key] for key in keep} for hit in hits]


@server.tool()
def components() -> list[str]:
    """The documentation components that can be passed to search_docs."""
    return list_components()


def main() -> None:
    server.run("stdio")
