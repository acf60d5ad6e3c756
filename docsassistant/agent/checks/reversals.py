"""Sentences of an answer that say the opposite of their source: condition 7 of `grounded`.

A verifier of the same kind as the writer tends to pass an answer that repeats its source
with one word flipped ("enabled" for "disabled", a dropped "not"), and a model asked "Is X
enabled by default?" tends to say yes. Both keep nearly every word of the source sentence,
which is what this check looks for: an answer sentence whose content words are mostly in
one sentence of a cited source, with an odd number of flips between them (a negation on
one side only, or the two words of an opposite pair; the comparison is `polarity.py`'s).
Pure functions, tested directly; no model call, so it cannot be talked out of its verdict.
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.polarity import (
    Profile,
    is_reversed,
    profile_of,
    restates_source,
    shared_words,
)
from docsassistant.agent.checks.words import sentences
from docsassistant.agent.checks.yes_no import NAME, affirms, is_yes_no

_MARKER = re.compile(r"\[\d+\]")
# "Yes, …" / "No, …" answer the question; they are not part of the statement after them.
# Only when punctuation follows: "No index is needed" states something, "No, …" answers.
_ANSWER_WORD = re.compile(r"^\W*(yes|yeah|yep|no|nope|correct|right|indeed|exactly)\s*[,.;:!—–-]+\s*", re.I)
# "Not by default: it delivers at least once", "Not if it has several disks: it keeps
# serving …": the opener answers the question, like "No," (blind QA round 19 r20, r28).
_NOT_OPENER = re.compile(
    r"^\W*not\s+(?:by default|yet|quite|necessarily|always|exactly|really|(?:if|unless|when|on|in|with|for)\b[^:;,—–.]{0,80})"
    r"\s*[:;,—–]+\s*",
    re.I,
)
_DENIES = re.compile(r"^\W*(no|nope|not quite|that'?s (not|incorrect|wrong)|incorrect)\b", re.I)

# Clauses an answer joins that its source may state apart, each compared alone: "Support
# for Python 3.8 was removed in 4.0, so later releases do not support it" (QA round 11 s62),
# "keeps entries in memory only and does not save them to disk" (s04). "and" only before a
# second verb: split at every "and", dev misreads of eval/reversal_checks.py rose from 79 to
# 105 of 7,664 sentences.
CLAUSE_SPLIT = re.compile(
    r";\s+|,\s+(?:so|but|while|whereas)\s+"
    r"|,?\s+and\s+(?=(?:does|do|is|are|can|will|must|should|has|have|never|not)\b)"
)

# The halves of a source sentence that contrasts two things ("can create queues but cannot delete them").
_SOURCE_CLAUSE = re.compile(r";\s+|,?\s+but\s+|,\s+(?:while|whereas)\s+")

# A heading states nothing, so it contradicts nothing: "=== Prompt and Completion Data" is
# not the opposite of "Prompt and completion data is not exported by default".
_HEADING = re.compile(r"^\s*(?:#{1,6}|={1,6})\s")


def reversed_statements(answer: str, sources: list[str], question: str = "") -> list[str]:
    """Statements of the answer that a cited source says the opposite of.

    Each prose sentence of the answer is compared with each sentence of `sources` (the
    contents of the sources it cites). An answer opening with yes or no to a yes/no
    `question` also states the question itself, as asked or negated: "Is it enabled by
    default?" answered "Yes [1]." claims it is enabled."""
    profiles: list[Profile] = []
    headings: list[Profile] = []  # they may still restate a statement ("# Acme Gateway")
    halves: list[tuple[Profile, list[Profile]]] = []  # each half of a contrast, and the other half
    for s in (s for text in sources for s in sentences(text)):
        (headings if _HEADING.match(s) else profiles).append(profile_of(s))
        # "Operators can create queues but cannot delete them": its first half, said alone,
        # is no opposite of it (QA round 13 p12). Halves only clear a statement, never flip one.
        if len(parts := _SOURCE_CLAUSE.split(s)) > 1:
            halves += [(profile_of(part), [profile_of(o) for o in parts if o is not part]) for part in parts]
    out: list[str] = []
    for sentence in sentences(answer):
        statement = _NOT_OPENER.sub("", _ANSWER_WORD.sub("", _MARKER.sub(" ", sentence)))
        clauses = CLAUSE_SPLIT.split(statement)
        # A statement saying a source sentence whole: its clauses that hold only that
        # sentence's words are parts of it, whatever its negation covers ("Otherwise the run
        # is marked" of "… marked `lost` and not retried, because …": QA round 15 r21).
        mine = profile_of(statement)
        whole = [s[0] for s in profiles if restates_source(mine, s)]
        parts = {c: profile_of(c) for c in clauses}
        clauses = [c for c in clauses if not any(parts[c][0] <= words for words in whole)]
        # Once one clause is a source's sentence, the others are judged alone, not with it.
        restated = bool(whole) or any(
            restates_source(parts[c], s) for c in clauses for s in profiles + headings
        )
        judged = clauses if restated else dict.fromkeys([statement, *clauses])
        if any(is_reversed(part, profiles, headings + _halves_alone(part, halves)) for part in judged) and (
            sentence not in out
        ):
            out.append(sentence)
    if question and is_yes_no(question):
        asked = question.strip().rstrip("?")
        if (affirms(answer) and is_reversed(asked, profiles, headings)) or (
            _DENIES.match(answer) and is_reversed(f"not {asked}", profiles, headings)
        ):
            out.append(question.strip())
    return out


def _halves_alone(statement: str, halves: list[tuple[Profile, list[Profile]]]) -> list[Profile]:
    """The halves of a contrast ("can create queues but cannot delete them") that may restate
    `statement`: those whose other half it shares no word with, so
    "can create queues" clears "Operators can create queues" (QA round 13 p12) and not "can
    create queues but can delete them"."""
    mine = profile_of(statement)
    return [half for half, others in halves if not any(shared_words(mine, o) for o in others)]


def contradicted_by_evidence(answer: str, question: str, evidence: list[str]) -> list[str]:
    """A yes (or no) to a yes/no question that names something, which a sentence of any
    retrieved source naming the same things says the opposite of: "Does Acme Proxy also
    support HTTP/3?" answered "Yes, like Acme Gateway it does [gateway page]" while the
    proxy page, retrieved but not cited, says it does not (QA round 10, s48). Only
    sentences holding every name of the question are compared, so the gateway page's
    "supports HTTP/3" cannot contradict a question about the proxy; a question with no
    name is left to the cited sources (`reversed_statements`)."""
    named = {n.strip("`").lower() for n in NAME.findall(question) if len(n.strip("`")) > 1}
    if not named or not is_yes_no(question):
        return []
    profiles: list[Profile] = []
    context: list[Profile] = []  # the rest of those sentences' pages, which may restate the
    # answer naming less ("Acme Gateway supports HTTP/2. HTTP/3 is not supported."; QA 11 s50)
    for text in evidence:
        page = sentences(text)
        naming = [s for s in page if all(n in s.lower() for n in named)]
        profiles += [profile_of(s) for s in naming]
        if naming:
            context += [profile_of(s) for s in page if s not in naming]
    asked = question.strip().rstrip("?")
    if (affirms(answer) and is_reversed(asked, profiles, context)) or (
        _DENIES.match(answer) and is_reversed(f"not {asked}", profiles, context)
    ):
        return [question.strip()]
    return []
