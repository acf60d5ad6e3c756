"""An invented item in a list the source gives: part of condition 8 (docs/flags.md).

"The Enterprise edition adds exactly-once delivery, tiered storage, LDAP authentication and
geo-replication between regions [1]", [1] listing only the first three (QA round 13 w05).
The sentence shares most of its words with its source, so the word share passes it, and a
verifier of the writer's kind marks it supported; the reader takes the fourth item for a
documented feature.

An answer's list is held to the source sentence whose list it repeats (two items or more
in common): an item of the answer that shares no word with that sentence's items and names
something no source the writer saw mentions at all was added. Items said in other words
("LDAP auth") share a word and pass; an item from another sentence of the evidence passes.
Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, quoted_sentence, seen_text
from docsassistant.agent.checks.figures import CODE_SPANS, FENCED_CODE
from docsassistant.agent.checks.words import content_stems
from docsassistant.agent.citations import MARKER

# Items of an enumeration: "a, b and c", "a, b, or c"; clauses apart at ";" and ":".
_ITEM_BREAK = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.I)
_CLAUSE = re.compile(r"\s*[;:]\s+")
MIN_SHARED_ITEMS = 2
_DENIAL = re.compile(r"\b(?:not|no|never|cannot|unsupported)\b|n't\b", re.I)
MAX_ITEM_WORDS = 4  # an item is a short phrase; a longer part is a clause of its own
_NOT_ITEMS = frozenset({"e.g", "i.e", "etc", "eg", "ie", "etc."})  # "…, e.g." closes a list


def list_items(sentence: str) -> list[set[str]]:
    """The content stems of each item of `sentence`'s enumeration (one item: no list)."""
    items = [content_stems(part) for part in _ITEM_BREAK.split(CODE_SPANS.sub(_unquoted, sentence))]
    return [item for item in items if item and not item <= _NOT_ITEMS]


def _unquoted(span: re.Match[str]) -> str:
    return span.group(0).strip("`")


def _matches(item: set[str], other: set[str]) -> bool:
    return bool(item & other) and (item <= other or other <= item or len(item & other) * 2 >= len(item))


def invented_list_items(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences whose list repeats a source sentence's list with an item added that
    no source mentions (see the module docstring)."""
    texts = [seen_text(s) for s in sources]
    lists = [
        items
        for text in texts
        for sentence in SOURCE_SENTENCE.split(text)
        for clause in _CLAUSE.split(sentence)
        if len(items := list_items(clause)) >= 2
    ]
    sentences = [s for text in texts for s in SOURCE_SENTENCE.split(text)]
    # Words the evidence uses only in denials ("WebDAV and FTP are not supported"): an item
    # made of them was added against the sources (QA round 14 w14), not only without them.
    said = (
        set().union(*(content_stems(s) for s in sentences if not _DENIAL.search(s))) if sentences else set()
    )
    denied = set().union(*(content_stems(s) for s in sentences if _DENIAL.search(s))) if sentences else set()
    known = said | denied
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        if any(
            # A clause that denies something itself may be saying the sources' no.
            _added(list_items(c), lists, known, set() if _DENIAL.search(sentence) else denied - said)
            for c in _CLAUSE.split(MARKER.sub(" ", sentence))
        ):
            out.append(quoted_sentence(sentence))
    return out


def _added(items: list[set[str]], lists: list[list[set[str]]], known: set[str], denied: set[str]) -> bool:
    """Whether the clause's `items` repeat one of the sources' `lists` with an item added: a
    short one sharing no word with that list, at least half of whose words no source uses,
    or all of whose words the sources use only in denials (`denied`)."""
    if len(items) < MIN_SHARED_ITEMS + 1:
        return False
    # An item sharing a word with another list of the sources is that list's ("512 MiB of RAM"
    # beside the agent's "2 CPU cores and 512 MiB of memory", the clause matching the relay's
    # "4 cores and 4 GiB": blind QA round 17 r20), not an addition.
    listed = set().union(*(i for theirs in lists for i in theirs)) if lists else set()
    for theirs in lists:
        if sum(any(_matches(i, t) for t in theirs) for i in items) < MIN_SHARED_ITEMS:
            continue
        words = set().union(*theirs) | listed
        # The first item carries the sentence's lead-in ("Redeliveries back off exponentially,
        # starting at 1 second, …" for the page's "…: 1 second, …"): held to the whole clause.
        if any(
            len(i) <= MAX_ITEM_WORDS and not i & words and (len(i - known) * 2 >= len(i) or i <= denied)
            for i in items[1:]
        ):
            return True
    return False
