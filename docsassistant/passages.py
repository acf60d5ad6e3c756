"""Small-to-big: widen a hit to the neighbouring chunks of the same section.

A section longer than the chunk size is split into consecutive chunks (with overlap);
the chunk that matched may hold only half of the answering passage. Within a character
budget per hit, the chunks before and after it in the same document and section are
joined to it (overlap removed), nearest first, alternating after/before.
"""

from __future__ import annotations

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
