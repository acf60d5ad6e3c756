"""A "no" of a support table answered as a yes: part of condition 7 (docs/flags.md).

"Keelback Vault runs on Linux (x86_64 and arm64), macOS 12 or later and Windows Server 2019
or later [1]", [1] being the table "| platform | Keelback Agent | Keelback Vault |" whose
macOS and Windows rows say "yes | no" (QA round 14 w07). Every word is in the cited table,
the agent's column says yes, and a verifier of the writer's kind passes it.

A table counts when most of its cells after the first column are yes or no ("yes",
"supported", "✓"; "no", "not supported", "✗", "—"). An answer sentence without a negation
that names one column (by a word no other column's header has: "Vault") and the row of a
"no" cell (by the row label's first word: "macOS") says the opposite of that cell. Pure
functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import CONTRAST, SOURCE_SENTENCE, TABLE_CELLS, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.words import tokens

_SEPARATOR = re.compile(r"^[\s|:-]+$")
_YES = re.compile(r"^(?:yes|y|supported|✓|✔|x)$", re.I)
_NO = re.compile(r"^(?:no|n|not\s+supported|unsupported|✗|✘|—|–|-|n/a)$", re.I)
_NEGATION = re.compile(
    r"\b(?:not|no|never|only|except|cannot|can't|isn't|aren't|doesn't|don't|without)\b|n't\b", re.I
)
# Words of a header that name no column: "Supported by Milvus Lite" is the column "milvus lite".
_HEADER_FILLER = frozenset(
    {
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "for",
        "on",
        "in",
        "by",
        "with",
        "supported",
        "support",
        "available",
    }
)


def denied_cells(text: str) -> list[tuple[str, str]]:
    """(column, row word) for each "no" cell of `text`'s yes/no tables, lower-cased, and
    (column, "") for each column; a column is the words of its header no other header has."""
    return _denied(_rows(text))


def _rows(text: str) -> list[list[str]]:
    """The cells of every table line of `text`, separator lines left out: a page's tables
    are read as one, the first line its header (the pages this is for hold one such table)."""
    lines = [m.group(1) for line in text.splitlines() if (m := TABLE_CELLS.match(line))]
    return [[c.strip() for c in line.split("|")] for line in lines if not _SEPARATOR.match(line)]


def _denied(table: list[list[str]]) -> list[tuple[str, str]]:
    if len(table) < 2:
        return []
    header, rows = table[0], [r for r in table[1:] if len(r) == len(table[0])]
    cells = [c for r in rows for c in r[1:]]
    whole = bool(cells) and sum(bool(_YES.match(c) or _NO.match(c)) for c in cells) * 3 >= len(cells) * 2
    # In a table of figures, a row of yes and no alone is a support row all the same: "|
    # `drop_oldest` buffer policy | no | yes | yes |" among limits per edition (blind QA round
    # 17 w14). It needs a yes: a row of dashes is a setting with no values, not a denial.
    support = [r for r in rows if whole or _yes_no_row(r[1:])]
    if not support:
        return []
    words = [set(tokens(h)) - _HEADER_FILLER for h in header]
    keys = _row_keys([r[0] for r in support])
    out = []
    for j in range(1, len(header)):
        own = " ".join(sorted(words[j] - set().union(*(words[k] for k in range(1, len(header)) if k != j))))
        if not own:
            continue
        out.append((own, ""))  # the column itself, "no" cells or not
        for row, key in zip(support, keys, strict=True):
            if key and _NO.match(row[j]):
                out.append((own, key))
    return out


def _row_keys(labels: list[str]) -> list[str]:
    """The words that name each row: its label's first word ("macos" of "macOS 13+"), or, when
    another row's label starts with the same word, all its label's words ("single sign-on
    with oidc" beside "… with saml": blind QA round 20 r24; "tiered storage to amazon s3":
    round 19 r15)."""
    firsts = [t[0] if (t := tokens(label)) else "" for label in labels]
    return [
        " ".join(w for w in tokens(label) if w not in _HEADER_FILLER) if firsts.count(first) > 1 else first
        for label, first in zip(labels, firsts, strict=True)
    ]


def _yes_no_row(cells: list[str]) -> bool:
    """Every cell yes or no, one yes at least."""
    return all(_YES.match(c) or _NO.match(c) for c in cells) and any(_YES.match(c) for c in cells)


def row_words(text: str) -> set[str]:
    """The words naming each row of `text`'s yes/no tables (`_row_keys`)."""
    table = _rows(text)
    return {key for key in _row_keys([row[0] for row in table[1:]]) if key} if _denied(table) else set()


def matrix_denials(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences saying yes where a cited yes/no table says no (see the module docstring)."""
    cells = {cell for s in cited_sources for cell in denied_cells(str(s.get("content") or ""))}
    denied = {(c, r) for c, r in cells if r}
    if not denied:
        return []
    columns = {c for c, _ in cells}
    rows = set().union(*(row_words(str(s.get("content") or "")) for s in cited_sources))
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        # Each clause of a contrast on its own: "the agent is supported on macOS, although the
        # relay is not" says yes for the agent (blind QA round 17 w25).
        for clause in CONTRAST.split(sentence):
            said = set(tokens(clause))
            named = [c for c in columns if set(c.split()) <= said]
            if _NEGATION.search(clause) or not named:
                continue  # a negation may be the table's no
            # Columns named together of one row, without a negation, are all said yes:
            # "supported for both the agent and the relay" (w23); naming two rows too ("the
            # Vault on Linux, the agent also on macOS"), which is which is unclear.
            if len(named) > 1 and sum(set(r.split()) <= said for r in rows) != 1:
                continue
            if any(c in named and set(r.split()) <= said for c, r in denied):
                out.append(quoted_sentence(sentence))
                break
    return out
