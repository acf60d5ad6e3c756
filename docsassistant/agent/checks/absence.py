"""Answers that say the documentation is silent on what a retrieved source states.

Told to say which part of a question the documentation does not cover, a small model also
says it of parts a source it was given does cover ("The documentation does not say how
long backups are kept" beside a page saying "Backups are kept for 14 days"; QA round 10
s37), or of a page the grader set aside (s10). The reader then believes the docs lack it.
Part of condition 7 of `grounded` (an answer saying the opposite of a source): a clause
claiming an absence whose topic, every content word of it, is in one sentence of one
retrieved source. Pure functions, no model call.

Measured on the docs-QA sets (top-10 hits of each question as the sources; three phrasings
of the claim each). Claims whose topic is a span of 4-8 words of the question's evidence
sentence: dev 91 of 126 caught, test 82 of 117. Claims whose topic is the question as the
user worded it: 0 of 126 and 0 of 120 (the check needs the documentation's words). Never
fired: on the gold answers (0 of 53 dev, 0 of 51 test), on the unanswerable questions'
claims against their own hits (0 of 15, 0 of 15), on claims against another question's hits
(0 of 159, 0 of 153). Dev choices: all the topic's words, not 80 % (one more dev catch,
none on test, and it lets one word of the topic be another subject's); two words at
least, not three (65 of 126 dev caught).
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.words import content_stems
from docsassistant.agent.citations import MARKER

_VERBS = (
    "say|state|mention|specify|cover|describe|document|explain|list|give|provide|include|"
    "contain|detail|address|discuss|indicate"
)
_PARTICIPLES = (
    "said|stated|mentioned|specified|covered|described|documented|explained|listed|given|"
    "provided|included|detailed|addressed|discussed|indicated"
)
_SPEAKER = r"(?:documentation|docs|document|page|pages|sources?|context|excerpts?|passages?|evidence)"
# "The index does not include NULL values" states a fact about the product, not about the
# docs: the active form needs the documentation as its subject, the passive form a word
# only said of documents, or "in the documentation" after it.
_ABSENCE = re.compile(
    rf"\b{_SPEAKER}\b[^.;:]{{0,40}}?\b(?:does|do|did)(?:n't|\s+not)\s+(?:\w+ly\s+)?(?:{_VERBS})s?\b"
    r"|\b(?:is|are|was|were)(?:n't|\s+not)\s+(?:\w+ly\s+)?(?:mentioned|specified|documented|stated|discussed|addressed)\b"
    rf"|\b(?:is|are|was|were)(?:n't|\s+not)\s+(?:\w+ly\s+)?(?:{_PARTICIPLES})\s+(?:in|by)\s+the\s+{_SPEAKER}\b"
    r"|\bno\s+(?:information|mention|details?|documentation|guidance)\s+(?:about|on|of|regarding|for|as\s+to)\b"
    r"|\bnothing\s+(?:about|on|regarding)\b"
    # The model's own search spoken of: "I couldn't find anything about IPv6 in the
    # documentation" (QA round 14 r18), "I found no mention of …".
    r"|\b(?:could|can|did)(?:n't|\s+not)\s+find\s+(?:any\s+)?(?:information|mention|details?|anything|"
    r"documentation|reference)\b|\bfound\s+no\s+(?:information|mention|details?|reference)\b",
    re.IGNORECASE,
)
# "If the dimension is not specified, the model's default is used" is documentation, not a
# claim about it.
_CONDITION = re.compile(r"^\W*(?:if|when|whenever|unless|where|until|once|otherwise)\b", re.IGNORECASE)
# Words that speak of the documentation or of saying, not of the topic said to be missing.
_META = content_stems(
    "documentation docs document documents page pages source sources context provided "
    "information evidence text passage passages excerpt excerpts retrieved available "
    "explicitly directly specifically clearly whether any anything nothing detail details "
    "where which who why "
    f"guidance mention {_VERBS.replace('|', ' ')} {_PARTICIPLES.replace('|', ' ')} "
    "says states mentions specifies covers describes documents explains lists gives provides "
    "includes contains details addresses discusses indicates however unfortunately not"
)
_CLAUSE_BREAK = re.compile(r"[;:]\s+|,\s+(?=but\b|however\b|though\b|although\b)|\s+(?:but|while|whereas)\s+")
_HOW = re.compile(r"\bhow\s+(?:long|many|much|often|far|large|big|soon|fast)\b", re.IGNORECASE)
MIN_TOPIC_WORDS = 2  # "It is not documented." has no topic to look for


def claims_absence(sentence: str) -> bool:
    """The sentence says the documentation lacks something ("The documentation does not
    mention a cache for Acme Gateway"), outside a condition."""
    return any(
        _ABSENCE.search(clause) and not _CONDITION.match(clause)
        for clause in _CLAUSE_BREAK.split(MARKER.sub(" ", sentence))
    )


def denied_coverage(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """The answer's clauses saying the documentation lacks something that one sentence of
    a source states, every content word of the clause's topic in it (inline code
    counts: an identifier is often the topic; code blocks do not); quoted without markers.

    `sources` are the evidence items as the generator saw them (`prompt_text` when
    redacted, else `content`) and the other chunks the turn retrieved."""
    sentences = [
        content_stems(s)
        for source in sources
        for s in SOURCE_SENTENCE.split(source.get("prompt_text") or source.get("content") or "")
    ]
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for clause in _CLAUSE_BREAK.split(MARKER.sub(" ", sentence)):
            if not claims_absence(clause):
                continue
            topic = content_stems(_HOW.sub(" ", clause)) - _META
            if len(topic) >= MIN_TOPIC_WORDS and any(topic <= stems for stems in sentences):
                out.append(quoted_sentence(sentence))
                break
    return out
