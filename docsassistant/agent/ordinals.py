"""Which item of the previous answer "the second one" points at.

A follow-up that picks an item by its place ("and the second one?", "what about the
latter?") is resolved by counting, not by guessing: the previous answer's list items (or
the names it joins with "and"/"or") in order. The standalone rewrite of a small model picks
the wrong item too (QA round 10 s40: "the second one" after an answer listing two teams,
rewritten about the first); the count tells when it did.
"""

from __future__ import annotations

import re

_ORDINAL = re.compile(
    r"\bthe\s+(first|second|third|fourth|fifth|last|former|latter|1st|2nd|3rd|4th|5th)\b", re.IGNORECASE
)
_PLACES = {
    "first": 0, "1st": 0, "former": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2,
    "fourth": 3, "4th": 3, "fifth": 4, "5th": 4, "last": -1, "latter": -1,
}  # fmt: skip
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.+)$", re.MULTILINE)
# An item's name: its bold or code span, else the capitalised words it opens with.
_LEADING_NAME = re.compile(r"^\W*?(?:\*\*([^*]+)\*\*|`([^`]+)`|([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)*))")
_NAME = r"(?:`[^`]+`|[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)*)"
# "HNSW, IVFFlat and DiskANN", "the Falcon team and the Heron team".
_ITEM = rf"(?:the\s+)?{_NAME}(?:\s+(?!and\b|or\b)[a-z]+)?"
_ENUMERATION = re.compile(rf"({_ITEM}(?:,\s+{_ITEM})*,?\s+(?:and|or)\s+{_ITEM})")


def listed_names(answer: str) -> list[str]:
    """The names the answer lists, in order: its list items' leading names, else the
    longest run of names joined by commas and "and"/"or" in one sentence."""
    items = [_LEADING_NAME.match(item) for item in _LIST_ITEM.findall(answer)]
    names = [next(g for g in m.groups() if g).strip() for m in items if m]
    if len(names) >= 2:
        return names
    runs = [re.split(r",\s+(?:and\s+|or\s+)?|\s+(?:and|or)\s+", run) for run in _ENUMERATION.findall(answer)]
    longest = max(runs, key=len, default=[])
    found = [re.search(_NAME, piece) for piece in longest]
    return [m.group(0).strip("`") for m in found if m]


def picked_name(question: str, answer: str) -> str | None:
    """The name the question picks from the answer's list by its place, else None."""
    match = _ORDINAL.search(question)
    names = listed_names(answer) if match else []
    if not match or len(names) < 2:
        return None
    word = match.group(1).lower()
    if word in ("former", "latter") and len(names) != 2:
        return None
    place = _PLACES[word]
    return names[place] if place < len(names) else None


def names_another(rewritten: str, picked: str, answer: str) -> bool:
    """The rewrite names another item of the answer's list and not the picked one. A
    rewrite naming no listed item is left alone."""
    text = rewritten.lower()
    others = [n for n in listed_names(answer) if n != picked]
    return picked.lower() not in text and any(n.lower() in text for n in others)
