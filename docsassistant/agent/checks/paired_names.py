"""Two names of a table paired in the answer that the table puts in different rows: part of
condition 5 of `grounded` (docs/flags.md).

"You get `VK-4291` (QUOTA_EXCEEDED) [1]", [1] being the error table whose rows are
"| `VK-4290` | QUOTA_EXCEEDED | … |" and "| `VK-4291` | RATE_LIMITED | … |" (blind QA round 20
w38). Both names are in the cited chunk, so the name check passes it; the pairing is wrong.

A name is a backquoted token, an upper-case identifier (`QUOTA_EXCEEDED`) or a code such as
`VK-4290`. A pair is one name followed by another in brackets, "A (B)". It is flagged when
some row of a cited table holds A, some other row holds B, and no row holds both. Pure
functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, TABLE_CELLS, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE

_NAME = r"`[^`\s]{2,60}`|\b[A-Z][A-Z0-9]*(?:[_-][A-Z0-9]+)+\b"
_PAIR = re.compile(rf"({_NAME})\s*\(\s*({_NAME})\s*\)")


def _names(text: str) -> set[str]:
    return {m.group(0).strip("`").lower() for m in re.finditer(_NAME, text)}


def table_row_names(text: str) -> list[set[str]]:
    """The names of each row of `text`'s Markdown tables (header rows included, harmlessly)."""
    return [
        names
        for line in text.splitlines()
        if (m := TABLE_CELLS.match(line)) and (names := _names(m.group(1)))
    ]


def mispaired_names(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences pairing two names of a cited table that it holds in different rows
    (see the module docstring), as "VK-4291 (QUOTA_EXCEEDED) in '…'"."""
    rows = [r for s in cited_sources for r in table_row_names(str(s.get("content") or ""))]
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for m in _PAIR.finditer(sentence):
            a, b = (m.group(i).strip("`").lower() for i in (1, 2))
            with_a = [r for r in rows if a in r]
            with_b = [r for r in rows if b in r]
            if with_a and with_b and not any(b in r for r in with_a):
                out.append(
                    f"{m.group(1).strip('`')} ({m.group(2).strip('`')}) in {quoted_sentence(sentence)!r}"
                )
                break
    return out
