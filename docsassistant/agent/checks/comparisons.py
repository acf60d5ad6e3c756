"""Comparisons an answer makes ("A keeps more than B"): part of condition 8 of `grounded`.

A reversed comparison repeats its pages' words and states no figure, so the word and
figure checks have nothing to hold it to, and a verifier of the writer's kind passes it:
"Nimbus Stream uses a higher default replication factor than Nimbus Queue [1][3]", the
pages giving 2 and 3 (QA round 13 w13; round 14 w22, w23, "the hook timeout is the longer
of the two"). Two cases are judged:

- a comparison with a figure on each side of its "than" must order them its way: "higher
  (2) than Nimbus Queue's (3)" contradicts itself;
- a comparison with no figure, in an answer stating fewer than two, rests on figures the
  reader is not shown: it is taken as unbacked unless a source it cites makes the same
  comparison, the same way, in the same words ("faster build times … than HNSW").

The generation prompt asks for each compared figure with its citation, which the figure
checks then hold to the right page.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import (
    CITATION_MARKER,
    SOURCE_SENTENCE,
    cited_sentences,
    quoted_sentence,
    seen_text,
)
from docsassistant.agent.checks.coverage import says_nothing
from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures
from docsassistant.agent.checks.units import magnitudes
from docsassistant.agent.checks.words import content_stems

_UP = frozenset("more higher larger longer greater bigger later newer wider heavier".split())  # noqa: SIM905
_DOWN = frozenset("less fewer lower smaller shorter earlier older narrower lighter".split())  # noqa: SIM905
# Ordered by no figure ("faster" is a higher rate and a shorter time): judged only as words.
_OTHER = frozenset("better worse faster slower cheaper costlier stricter looser".split())  # noqa: SIM905
_ANY = "|".join(sorted(_UP | _DOWN | _OTHER))
COMPARISON = re.compile(
    rf"\b(?P<word>{_ANY})\b(?:\s+[^\s.;:]+){{0,6}}?\s+than\b|\bthe\s+(?P<of_two>{_ANY})\s+of\s+the\s+two\b",
    re.I,
)
_ANY_COMPARISON = re.compile(rf"\b(?:{_ANY})\b", re.I)
_COMPARISON_WORDS = content_stems(" ".join([*_UP, *_DOWN, *_OTHER, "than"]))
# "more than 10 requests", "later than 2.4": a threshold, not a second subject.
_THRESHOLD = re.compile(r"^\W*(?:the\s+)?\(?\s*`?\d", re.I)
MIN_SHARED = 2  # content words a source's comparison shares with the answer's to back it


def comparisons(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """The answer's comparisons that its own figures contradict, or that rest on no figure
    it states and on no comparison its cited sources make (see the module's docstring)."""
    by_n = {s.get("n"): s for s in sources}
    prose = FENCED_CODE.sub(" ", answer)
    shows_figures = len(stated_figures(prose)) >= 2  # markers are no figures there
    out: list[str] = []
    for sentence, cited in cited_sentences(prose, by_n):
        plain = CITATION_MARKER.sub(" ", sentence)
        if says_nothing(plain) or len(content_stems(plain) - _COMPARISON_WORDS) < MIN_SHARED:
            continue  # "Greater than or equal" (a table's operator names) compares nothing
        for match in COMPARISON.finditer(plain):
            word = (match.group("word") or match.group("of_two")).lower()
            if _contradicted(plain, match) or (
                not shows_figures
                and not stated_figures(plain)
                and not _made_by(plain, word, [by_n[n] for n in cited])
            ):
                out.append(quoted_sentence(sentence))
                break
    return out


def _contradicted(sentence: str, match: re.Match[str]) -> bool:
    """A figure on each side of "than", of one kind, ordered against the comparison's word."""
    word = (match.group("word") or "").lower()
    if _direction(word) not in ("up", "down"):
        return False  # "the longer of the two" names no second figure; "faster" orders none
    after = sentence[match.end() :]
    if _THRESHOLD.match(after):
        return False
    before, behind = magnitudes(sentence[: match.end()]), magnitudes(after)
    if len(before) != 1 or len(behind) != 1 or before[0][0] != behind[0][0]:
        return False
    first, second = before[0][1], behind[0][1]
    return first <= second if _direction(word) == "up" else first >= second


def _direction(word: str) -> str:
    """ "up" or "down" for an ordering word; any other comparison word is its own."""
    word = word.lower()
    return "up" if word in _UP else "down" if word in _DOWN else word


def _made_by(sentence: str, word: str, cited: list[dict[str, Any]]) -> bool:
    """A sentence of a cited source compares the same way ("higher" or "larger" for
    "higher"; "faster" only for "faster"), in `MIN_SHARED` of the sentence's other words.
    Subjects written the other way round ("HNSW builds slower than IVFFlat" for the page's
    "IVFFlat builds faster than HNSW") are not recognised and are flagged."""
    words = content_stems(sentence) - _COMPARISON_WORDS
    way = _direction(word)
    return any(
        any(_direction(w) == way for w in _ANY_COMPARISON.findall(line))
        and len(words & content_stems(line)) >= MIN_SHARED
        for source in cited
        for line in SOURCE_SENTENCE.split(seen_text(source))
    )
