"""Steps given in the opposite order to their source's: part of condition 7 (docs/flags.md).

"Run `keel prune` first …, then run `keel forget` [1]", [1] saying "Run `keel forget` first
and `keel prune` afterwards" (QA round 14 w33); a numbered answer that runs `keel init`
before registering the agent, its source's numbered steps registering first (w34). Every
word is on the page, so the word and reversal checks pass it; the reader who follows it
deletes nothing, or fails at step one.

A source orders two backquoted things when they sit in different items of one numbered
list, or in one sentence that says which comes first ("first … then/afterwards/next").
An answer orders them the same ways, or across the sentences of a paragraph that says
"first", "then", "next" or "finally". A pair the answer orders one way and its sources
only the other way is flagged. "Before"/"after" are left alone: "Before `b`, run `a`"
names them in the opposite order to the one it gives. Pure functions, no model call.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE

_CODE = re.compile(r"`([^`\n]+)`")
_ITEM = re.compile(r"^\s{0,3}(\d{1,2})[.)]\s+(.*)$")
# "First", "next" and "finally" order steps opening a sentence; inside one they are often
# adjectives ("the next document", "the first call"), except "… first" before a break or "then".
_SEQUENCE = re.compile(
    r"\b(?:then|afterwards?|followed\s+by|after\s+that)\b|^\W*(?:first|next|finally|lastly)\b"
    r"|\bfirst\b(?=\s*(?:[,;.]|and\b|then\b))",
    re.I,
)
_CONDITION = re.compile(r"\b(?:if|when|unless)\b", re.I)  # "if `a` is set, then `b` …": no sequence
# "After that" is a sequence, not a backwards "after" (blind QA round 17 w21).
_BACKWARDS = re.compile(r"\b(?:before|after(?!\s+that\b)|prior\s+to|once)\b", re.I)
Pair = tuple[str, str]


def _orders(sentence: str) -> bool:
    """The sentence says which of its things comes first (see the module docstring)."""
    sentence = sentence.strip()
    if _BACKWARDS.search(sentence) or not (m := _SEQUENCE.search(sentence)):
        return False
    # "… unless you are on Community, and then start it" is a sequence all the same (w21).
    before = sentence[: m.start()]
    return not (
        m.group(0).lower() == "then"
        and _CONDITION.search(before)
        and not before.rstrip().lower().endswith("and")
    )


def _spans(text: str) -> list[str]:
    """The backquoted things of `text` in order, each once, lower-cased and trimmed."""
    out: list[str] = []
    for span in _CODE.findall(text):
        key = " ".join(span.lower().split())
        if key not in out:
            out.append(key)
    return out


def _list_pairs(text: str) -> set[Pair]:
    """(earlier, later) for code spans in different items of one numbered list."""
    pairs: set[Pair] = set()
    items: list[list[str]] = []
    last = 0
    for line in text.splitlines():
        m = _ITEM.match(line)
        if m and int(m.group(1)) == last + 1:
            items.append(_spans(m.group(2)))
            last += 1
        elif m and int(m.group(1)) == 1:
            pairs |= _item_pairs(items)
            items, last = [_spans(m.group(2))], 1
        elif line.strip() and not line.startswith((" ", "\t")) and items:
            pairs |= _item_pairs(items)
            items, last = [], 0
        elif items and line.strip():
            items[-1] += [s for s in _spans(line) if s not in items[-1]]  # an item's continued lines
    return pairs | _item_pairs(items)


def _item_pairs(items: list[list[str]]) -> set[Pair]:
    return {
        (a, b)
        for i, j in combinations(range(len(items)), 2)
        for a in items[i]
        for b in items[j]
        if a != b and a not in items[j] and b not in items[i]
    }


def _ordered(spans: list[str]) -> set[Pair]:
    return {(a, b) for a, b in combinations(spans, 2)}


def _sentence_pairs(text: str) -> set[Pair]:
    """(earlier, later) for code spans of one sentence that says which comes first."""
    return {
        pair
        for sentence in SOURCE_SENTENCE.split(text)
        if _orders(sentence)
        for pair in _ordered(_spans(sentence))
    }


def source_order(text: str) -> set[Pair]:
    """Every (earlier, later) pair of backquoted things `text` puts in order."""
    return _list_pairs(text) | _sentence_pairs(text)


def _answer_pairs(answer: str) -> dict[Pair, str]:
    """The answer's ordered pairs, each with the sentence or item of the one it puts first."""
    found: dict[Pair, str] = {}
    prose = FENCED_CODE.sub(" ", answer)
    for pair in _list_pairs(prose):
        found.setdefault(pair, next(line for line in prose.splitlines() if f"`{pair[0]}" in line.lower()))
    for paragraph in re.split(r"\n\s*\n", prose):
        sentences = [s for s in SOURCE_SENTENCE.split(paragraph) if s.strip()]
        if any(_BACKWARDS.search(s) for s in sentences) or not any(_orders(s) for s in sentences):
            continue
        for pair in _ordered(_spans(paragraph)):
            found.setdefault(pair, next(s for s in sentences if f"`{pair[0]}" in s.lower()))
    return found


def reordered_steps(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences that put two steps in the order opposite to every source's."""
    order: set[Pair] = set()
    for source in sources:
        order |= source_order(str(source.get("prompt_text") or source.get("content") or ""))
    out: list[str] = []
    for (a, b), sentence in _answer_pairs(answer).items():
        if (b, a) in order and (a, b) not in order:
            quoted = quoted_sentence(sentence.strip())
            out += [quoted] if quoted not in out else []
    return out
