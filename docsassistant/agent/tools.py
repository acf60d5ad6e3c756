"""The tools offered to the model. Their docstrings are what the model routes on.

The graph runs them itself (the `retrieve` node, the tool executor) so it can grade,
accumulate and trace the results; these objects supply the names, descriptions and the
argument schemas that calls are validated against.
"""

from __future__ import annotations

from langchain_core.tools import tool

from docsassistant.readonly_sql import count_chunks as _count_chunks
from docsassistant.search import search_docs as _search_docs


@tool("search_docs", parse_docstring=True)
def search_docs_tool(query: str, component: str = "", k: int = 5) -> list[dict]:
    """Search the indexed documentation for passages about a topic.

    Use for any question about what the documentation says: concepts, configuration
    options, APIs, code identifiers, how-tos, comparisons.

    Args:
        query: A short search query in your own words (keywords, API or setting names).
        component: Optional documentation component to restrict the search to ("" for all).
        k: Number of passages to return (1-50).
    """
    return _search_docs(query, component or None, k)


@tool("count_chunks", parse_docstring=True)
def count_chunks_tool(component: str = "", mentioning: str = "") -> dict:
    """Count how many chunks (and documents) are indexed, for one component or all.

    Use only for questions about the size of the index, such as "how many chunks does the
    vector-rag component have?" or "how many documents mention Redis?". Not for questions
    about the documentation's content.

    Args:
        component: The component name, or "" for the whole index.
        mentioning: Count only chunks whose text contains these words, or "" for all.
    """
    return _count_chunks(component or None, mentioning or None)


TOOLS = [search_docs_tool, count_chunks_tool]
TOOLS_BY_NAME = {t.name: t for t in TOOLS}
