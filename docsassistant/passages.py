"""Small-to-big: widen a hit to the neighbouring chunks of the same section.

A section longer than the chunk size is split into consecutive chunks (with overlap);
the chunk that matched may hold only half of the answering passage. Within a character
budget per hit, the chunks before and after it in the same document and section are
joined to it (overlap removed), nearest first, alternating after/before.

A hit that opens inside a Markdown table (a long table cut by lines) gets the table's
header row back from the chunks before it (`head_tables`), always: its cells mean nothing
without their columns, to the model and to the checks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sqlalchemy as sa

REACH = 3  # neighbours looked at on each side; budgets are small enough for this to suffice

_NEIGHBOURS = sa.text(
    """
    SELECT h.id AS hit_id, n.id, n.ordinal, n.content
    FROM chunks h JOIN chunks n
      ON n.document_id = h.document_id AND n.section = h.section
     AND n.ordinal BETWEEN h.ordinal - :reach AND h.ordinal + :reach AND n.id <> h.id
    WHERE h.id = ANY(CAST(:ids AS bigint[]))
    ORDER BY h.id, n.ordinal"""
)


def join_overlapping(first: str, second: str, max_overlap: int = 400) -> str:
    """`first` + `second` without the text the chunker repeated at their seam."""
    for size in range(min(len(first), len(second), max_overlap), 0, -1):
        if first.endswith(second[:size]):
            return first + second[size:]
    return first + "\n" + second


def widen(hit_ordinal: int, content: str, neighbours: Sequence[tuple[int, str]], budget: int) -> str:
    """The hit's text with neighbours (ordinal, text) added while the budget lasts."""
    after = sorted((o, t) for o, t in neighbours if o > hit_ordinal)
    before = sorted(((o, t) for o, t in neighbours if o < hit_ordinal), reverse=True)
    text, spent = content, 0
    expected_after, expected_before = hit_ordinal + 1, hit_ordinal - 1
    while after or before:
        progressed = False
        for side in (after, before):
            if not side:
                continue
            ordinal, piece = side[0]
            contiguous = ordinal == (expected_after if side is after else expected_before)
            if not contiguous or spent + len(piece) > budget:
                side.clear()  # a gap or the budget ends this side
                continue
            side.pop(0)
            spent += len(piece)
            if side is after:
                text, expected_after = join_overlapping(text, piece), ordinal + 1
            else:
                text, expected_before = join_overlapping(piece, text), ordinal - 1
            progressed = True
        if not progressed:
            break
    return text


def widen_hits(conn: sa.Connection, hits: list[dict], budget: int) -> None:
    """Replace each hit's `content` by its widened passage (in place); record `widened_by`."""
    if budget <= 0 or not hits:
        return
    rows = conn.execute(_NEIGHBOURS, {"ids": [h["chunk_id"] for h in hits], "reach": REACH}).all()
    by_hit: dict[int, list[tuple[int, str]]] = {}
    for row in rows:
        by_hit.setdefault(row.hit_id, []).append((row.ordinal, row.content))
    for hit in hits:
        original = hit["content"]
        hit["content"] = widen(hit["ordinal"], original, by_hit.get(hit["chunk_id"], []), budget)
        hit["widened_by"] = len(hit["content"]) - len(original)


_BEFORE = sa.text(
    """
    SELECT h.id AS hit_id, n.content
    FROM chunks h JOIN chunks n
      ON n.document_id = h.document_id AND n.section = h.section
     AND n.ordinal BETWEEN h.ordinal - :reach AND h.ordinal - 1
    WHERE h.id = ANY(CAST(:ids AS bigint[]))
    ORDER BY h.id, n.ordinal DESC"""
)
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_SEPARATOR = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*\|?\s*$")


def headless(content: str) -> bool:
    """The text opens with table rows and no header (its second line no separator)."""
    lines = content.lstrip("\n").split("\n")
    return bool(_ROW.match(lines[0])) and not (len(lines) > 1 and _SEPARATOR.match(lines[1]))


def table_header(before: Sequence[str]) -> str | None:
    """The header and separator rows of the table that runs off the end of the nearest of
    `before` (nearest first) holding one; None when the table starts nowhere in them."""
    for text in before:
        lines = text.rstrip().split("\n")
        if not lines or not _ROW.match(lines[-1]):
            return None  # the chunk before ends outside a table: nothing to continue
        starts = [i for i in range(len(lines) - 1) if _ROW.match(lines[i]) and _SEPARATOR.match(lines[i + 1])]
        if starts:
            i = starts[-1]
            return f"{lines[i]}\n{lines[i + 1]}" if all(_ROW.match(line) for line in lines[i:]) else None
    return None


def head_tables(conn: sa.Connection, hits: list[dict]) -> None:
    """Prepend its table's header to each hit that opens inside a table (in place); record
    `table_header_added`."""
    open_rows = [h for h in hits if headless(h["content"])]
    if not open_rows:
        return
    rows = conn.execute(_BEFORE, {"ids": [h["chunk_id"] for h in open_rows], "reach": REACH}).all()
    before: dict[int, list[str]] = {}
    for row in rows:
        before.setdefault(row.hit_id, []).append(row.content)
    for hit in open_rows:
        if header := table_header(before.get(hit["chunk_id"], [])):
            hit["content"] = f"{header}\n{hit['content'].lstrip(chr(10))}"
            hit["table_header_added"] = True
