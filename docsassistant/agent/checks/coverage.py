"""Which sentences of an answer nothing checked: condition 6 of `grounded` (docs/flags.md).

The verifier is a model of the same kind as the writer, and small ones list only some of
an answer's claims (often just the cited one). A sentence no citation covers and no claim
matches was never checked, so the answer cannot be grounded. Pure functions, tested directly.
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.figures import CODE_SPANS
from docsassistant.agent.schemas import ClaimCheck

_MARKER = re.compile(r"\[\d+\]")
# A marker written after the full stop ("… seconds. [1] The …") stays with its sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(*_])|(?<=\])\s+(?=[A-Z])")
_WORD = re.compile(r"[a-z][a-z0-9_-]{2,}")
# Sentences that state nothing to check: sign-offs and pointers back to the sources.
_COURTESY = re.compile(
    r"^\W*(let me know|i hope|hope this|feel free|if you (have|need|want)|see \[|for (more|further) "
    r"(details|information)|here (is|are)|in (summary|short)|to summari[sz]e)\b",
    re.I,
)
# spaCy's list would do, but importing it costs ~5 s on a cold start of the verify path.
_STOPWORDS = frozenset(
    "the and for are but not you your with this that from can has have was were will which "  # noqa: SIM905
    "when what where how its also any all one use used using into than then there these "
    "those they them their been being may might must should would could does did done such "
    "only more most other some each per via about over under".split()
)
MIN_CHECKED_WORDS = 5  # shorter sentences ("Yes.", "It depends on the index.") are not judged


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def prose_paragraphs(answer: str) -> list[list[str]]:
    """The answer's prose as paragraphs (a list item is one) of sentences; code and headings
    left out. The one segmentation the code checks of verify share."""
    out = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)", CODE_SPANS.sub(" ", answer)):
        if not paragraph.lstrip().startswith("#"):
            out.append([s.strip() for s in _SENTENCE_END.split(" ".join(paragraph.split())) if s.strip()])
    return out


def says_nothing(sentence: str) -> bool:
    """A sentence too short, or a sign-off or pointer, that no check judges."""
    return len(sentence.split()) < MIN_CHECKED_WORDS or bool(_COURTESY.match(sentence))


def unchecked_sentences(answer: str, claims: list[ClaimCheck]) -> list[str]:
    """Sentences of the answer's prose that no citation and no verifier claim covers.

    A sentence is covered by a citation in it or by one later in its paragraph (models
    often cite once at the end of a paragraph); the sentences after a paragraph's last
    citation, and every sentence of a paragraph without one, are covered only when a
    claim of the verifier shares most of their content words. Code, headings, short
    sentences and sign-offs are left out."""
    claim_words = [_content_words(c.claim) for c in claims]
    out: list[str] = []
    for sentences in prose_paragraphs(answer):
        last_cited = max((i for i, s in enumerate(sentences) if _MARKER.search(s)), default=-1)
        for sentence in sentences[last_cited + 1 :]:
            words = _content_words(sentence)
            if says_nothing(sentence) or not words:
                continue
            if any(len(words & cw) >= 0.5 * len(words) for cw in claim_words):
                continue
            out.append(sentence)
    return out
