"""A figure of a table's column given to another of its columns: part of condition 5 of
`grounded` (docs/flags.md).

"On Pro, max_message_bytes can go up to 8 MiB, while Enterprise allows up to 64 MiB [1]", [1]
being the row "| Largest `max_message_bytes` | 8 MiB | 64 MiB | 64 MiB |" under the header
"| Limit | Community | Pro | Enterprise |" (blind QA round 19 w21). Both figures are in the
cited row, so the figure check passes it; the column is what is wrong.

A table counts when its columns after the first are peers (editions, plans, platforms): no
header of default, bound or description columns (`table_roles` reads those). An answer clause
that names one column (every word of its header) and, in its sentence, one row (its label's
backquoted name, or half its label's words) must not give a figure the row holds
in another column and not in the named one. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import (
    CONTRAST,
    SOURCE_SENTENCE,
    quoted_sentence,
    table_body_rows,
)
from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures
from docsassistant.agent.checks.words import FILLER, tokens

_NOT_PEERS = re.compile(
    r"\b(?:default|max|maximum|min|minimum|limit|range|allowed|description|notes?|meaning|example|type|unit)s?\b",
    re.I,
)


class Matrix:
    """A table whose columns after the first are peers: their headers, the headers' words, and
    per row its label and each peer cell's figures."""

    def __init__(self, headers: list[str], rows: list[tuple[str, list[set[str]]]]) -> None:
        self.headers, self.rows = headers, rows
        self.columns = [{w for w in tokens(h) if w not in FILLER} for h in headers]


def matrices(text: str) -> list[Matrix]:
    """`text`'s Markdown tables whose header names peers in every column after the first."""
    out: list[Matrix] = []
    header: list[str] | None = None
    current: Matrix | None = None
    for table_header, cells in table_body_rows(text):
        if table_header is not header:  # a new table
            header, current = table_header, Matrix(table_header[1:], [])
            if len(header) < 3 or not all(current.columns) or any(_NOT_PEERS.search(h) for h in header[1:]):
                current = None
            out += [current] if current else []
        if current and len(cells) == len(header):
            current.rows.append((cells[0], [set(stated_figures(c)) for c in cells[1:]]))
    return [m for m in out if m.rows]


def _names_row(sentence: str, label: str) -> bool:
    """The sentence names the row: by its label's backquoted name, or by half its words."""
    said = sentence.lower().replace("`", "")
    if names := re.findall(r"`([^`]+)`", label):
        return any(re.search(rf"(?<![\w-]){re.escape(n.lower())}(?![\w-])", said) for n in names)
    words = {w for w in tokens(label) if w not in FILLER and not w.isdigit()}
    return bool(words) and len(words & set(tokens(said))) * 2 >= len(words)


def _columns_named(text: str, table: Matrix) -> list[int]:
    said = set(tokens(text))
    return [i for i, words in enumerate(table.columns) if words <= said]


def figures_of_other_columns(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer clauses giving the one column they name a figure its row holds only in another
    column (see the module docstring), as "8 in 'On Pro, …'". A sentence naming no column
    speaks of the one its paragraph's previous sentence names alone: "The Team edition lets
    you protect up to 250 hosts. Each host can have up to 256 backup sets." gives Team the
    Enterprise figure (blind QA round 20 w18)."""
    tables = [t for s in cited_sources for t in matrices(str(s.get("content") or ""))]
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", FENCED_CODE.sub(" ", answer)):
        previous = ""
        for sentence in (s for s in SOURCE_SENTENCE.split(paragraph) if s.strip()):
            if found := _other_column_figure(sentence, previous, tables):
                out.append(f"{found} in {quoted_sentence(sentence)!r}")
            previous = sentence
    return out


def _other_column_figure(sentence: str, previous: str, tables: list[Matrix]) -> str | None:
    """The first figure `sentence` gives a column its row holds only in another column."""
    for table in tables:
        rows = [(label, cells) for label, cells in table.rows if _names_row(sentence, label)]
        if len(rows) != 1:
            continue  # no row, or several: whose figure is whose is unclear
        label, cells = rows[0]
        clauses = [(c, _columns_named(c, table)) for c in CONTRAST.split(sentence)]
        if not any(named for _, named in clauses):
            clauses = [(sentence, _columns_named(previous, table))]
        for clause, named in clauses:
            if len(named) != 1:
                continue
            own = cells[named[0]]
            others = set().union(*(c for i, c in enumerate(cells) if i != named[0])) - own
            figures = set(stated_figures(clause)) - set(stated_figures(label))  # "2.4.x" names a row
            if figures & others and not figures & own:
                return sorted(figures & others)[0]
    return None
