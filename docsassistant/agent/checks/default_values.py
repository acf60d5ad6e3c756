"""A setting's default given as a value its settings table does not give it: part of
condition 7 of `grounded` (docs/flags.md).

"No, producer.idempotent defaults to false [1]", [1] being the row
"| `producer.idempotent` | `true` | `true`, `false` | … |" under a "Default" header (blind QA
round 19 w31: the 3.x default, which the release notes still mention). The figure checks read
numbers only, and the words of the sentence are all in the row, so nothing else sees it.

Compared only where the reading is unambiguous: the sentence names one row of a cited table
with a default column, and states its default as an on/off value or as a value in backquotes.
It is flagged when the row's default is the opposite on/off value, or when the stated value is
another of the row's backquoted values (an allowed value given as the default). Pure
functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, table_body_rows
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.table_roles import DEFAULT_HEADER, names_setting

_SWITCH = {"true": True, "on": True, "enabled": True, "false": False, "off": False, "disabled": False}
_VALUE = r"(?P<v>`[^`\s]{1,60}`|[\w.-]+)"
# "defaults to false", "the default is `lz4`", "the default of `x` is true", "default value: true"; "is not enabled by
# default", "off by default"; "by default it is disabled". "defaulted"/"the default was"
# (a release note's old default) are left out on purpose.
_STATED = (
    re.compile(rf"\bdefault(?:\s+value)?\s+(?:of|for)\s+\S+\s+is\s+{_VALUE}", re.I),
    re.compile(rf"\b(?:defaults\s+to|default(?:\s+value)?(?:\s+is|\s+of|\s*:))\s*{_VALUE}", re.I),
    re.compile(rf"(?P<neg>\bnot\s+)?{_VALUE}\s+by\s+default\b", re.I),
    re.compile(
        rf"\bby\s+default,?\s+(?:it|this|the\s+\S+|`[^`]+`|\S+)\s+(?:is|are)\s+(?P<neg>not\s+)?{_VALUE}", re.I
    ),
)


class DefaultRow:
    """A settings-table row: its setting name, its default cell's values, and the backquoted
    values of its other cells (allowed values, examples)."""

    def __init__(self, key: str, default: set[str], others: set[str]) -> None:
        self.key, self.default, self.others = key, default, others - default


def _value(text: str) -> str:
    """A value as compared: `"false"` and `false` are one."""
    return text.strip().strip("\"'").lower()


def _values(cell: str) -> set[str]:
    quoted = re.findall(r"`([^`]+)`", cell)
    return {_value(v) for v in quoted} or {_value(cell)}


def default_rows(text: str) -> list[DefaultRow]:
    """The rows of `text`'s Markdown tables that have a default column."""
    rows: list[DefaultRow] = []
    for header, cells in table_body_rows(text):
        column = next((i for i, h in enumerate(header) if i and DEFAULT_HEADER.search(h)), None)
        if column is None or len(cells) != len(header):
            continue
        key = cells[0].strip("` ").lower()
        quoted = [v for i, c in enumerate(cells) if i not in (0, column) for v in re.findall(r"`([^`]+)`", c)]
        rows.append(DefaultRow(key, _values(cells[column]), {_value(v) for v in quoted} - {key}))
    return rows


def _stated(sentence: str) -> list[tuple[str, bool]]:
    """The values `sentence` gives as a default, each with whether it was backquoted; a negated
    on/off value ("not enabled by default") as its opposite."""
    out: list[tuple[str, bool]] = []
    for pattern in _STATED:
        for m in pattern.finditer(sentence):
            value, quoted = _value(m.group("v").strip("`")), m.group("v").startswith("`")
            if "neg" in m.groupdict() and m.group("neg"):
                if value not in _SWITCH:
                    continue
                value = "false" if _SWITCH[value] else "true"
            out.append((value, quoted))
    return out


def _contradicts(value: str, quoted: bool, row: DefaultRow) -> bool:
    if value in row.default:
        return False
    defaults = {_SWITCH[v] for v in row.default if v in _SWITCH}
    if value in _SWITCH and len(defaults) == 1:
        return _SWITCH[value] not in defaults
    return quoted and value in row.others


def other_default_values(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences that give the one setting they name a default its cited table row does
    not (see the module docstring), quoted with the row's default."""
    rows = [r for s in cited_sources for r in default_rows(str(s.get("content") or ""))]
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        named = [r for r in rows if r.key and names_setting(sentence, r.key)]
        if len({r.key for r in named}) != 1:
            continue  # no setting, or several: whose default is whose is unclear
        for value, quoted in _stated(sentence):
            if all(_contradicts(value, quoted, row) for row in named):
                row = named[0]
                shown = ", ".join(sorted(row.default))
                out.append(f"'{sentence.strip()}' (the table gives {row.key} the default {shown})")
                break
    return out
