"""Code identifiers and operators that PostgreSQL's text parser would split or drop.

`hnsw.ef_search` becomes `hnsw.ef` + `search`, `<=>` disappears and `PgVectorStore` is
stemmed; we keep such tokens verbatim (lower-cased) so full-text search can match them.
"""

from __future__ import annotations

import re

# pgvector's distance operators and similar symbolic operators.
_OPERATOR = r"<[=\-#+~%]>|<<->>|<~>|&&|\|\|"
# Dotted/namespaced names (hnsw.ef_search, pg_catalog.pg_class, Foo::bar), snake_case,
# camelCase/PascalCase with an inner capital (PgVectorStore, ef_construction).
_IDENT = (
    r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+"
    r"|[A-Za-z0-9]*_[A-Za-z0-9_]+"
    r"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"
)
_TOKEN = re.compile(rf"(?<![\w.])(?:{_OPERATOR}|{_IDENT})(?![\w])")
_MAX_TERMS = 200


def code_terms(text: str) -> list[str]:
    """Distinct code-like tokens of `text`, lower-cased, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in _TOKEN.finditer(text):
        token = match.group(0).strip(".").lower()
        if len(token) >= 2 and not token.startswith("__"):
            seen.setdefault(token, None)
            if len(seen) >= _MAX_TERMS:
                break
    return list(seen)
