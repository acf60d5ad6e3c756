"""Condition 8 of `grounded` for figures: each cited figure held to its own statement.

`misplaced_figures` holds each cited sentence's figures to its own citations: a figure
that only another cited source holds was moved there. `borrowed_subjects` catches the
other way round (QA round 9's s43): the figure cited right, but said of a thing only the
other cited page speaks of beside a figure ("the timeout is 1000 requests per minute
[rate-limit page]", the timeout being the other page's subject). `misbound_figures` catches
a figure the cited page gives, taken from its sentence about something else (QA round 12 m24).
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import (
    CITATION_MARKER,
    SOURCE_SENTENCE,
    cited_clauses,
    cited_sentences,
    described_text,
    figure_sentences,
    prose_words,
    quoted_sentence,
    seen_text,
)
from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures, unbacked_numbers
from docsassistant.agent.checks.same_page import other_chunks, unbacked_on_the_page
from docsassistant.agent.checks.word_support import MIN_WORDS
from docsassistant.agent.checks.words import content_stems


def misplaced_figures(answer: str, sources: list[dict[str, Any]], question: str = "") -> list[str]:
    """Cited sentences stating a figure that their own citations lack but another of the
    answer's sources holds: two figures swapped between two cited sources ("the timeout is
    1000 requests per minute [1]", [1] being the timeouts page and the 1000 the rate limit
    of [2]) pass a check of the whole answer against all its citations. A cited page's other
    chunk backs a figure it states on a line about the sentence's subject (`same_page`)."""
    by_n = {s.get("n"): s for s in sources}
    out: list[str] = []
    for sentence, cited in cited_sentences(answer, by_n):
        own = [by_n[n] for n in cited]
        pages = other_chunks(own, sources)
        others = [s for s in sources if s not in own]
        missing = unbacked_on_the_page(sentence, unbacked_numbers(sentence, own, question), pages)
        if any(not unbacked_numbers(figure, others, question) for figure in missing):
            out.append(quoted_sentence(sentence))
    return out


MIN_BINDING_LEAD = 2  # content words by which another sentence must beat the figure's own


def misbound_figures(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Cited clauses whose figure their cited source states only in sentences about other
    things, while another sentence of it, about what the clause says, gives another figure:
    "The legacy XML configuration was removed in version 2.4 [1]", [1] saying "Version 2.4
    introduced rate limiting. Version 2.5 removed the legacy XML configuration format" (QA
    round 12 m24, m04). The figure is on the page, and every word too. A backquoted value
    counts as a figure ("defaults to `debug`", m08). A clause is held to
    the sentence sharing most of its content words (the user's too: a question's words
    name the statement asked about): when the best
    sentence stating its figure shares `MIN_BINDING_LEAD` fewer words than one stating
    another figure and not this one (and that one half of the clause's words or more), the
    figure was taken from the wrong statement. A figure no cited sentence states is
    condition 5's."""
    by_n = {s.get("n"): s for s in sources}
    out: list[str] = []
    # Inline code kept (prose_paragraphs drops it): a backquoted value is what is checked.
    for sentence in _ANSWER_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for clause, cited in cited_clauses(sentence, by_n):  # whole: a part loses its subject
            # A figure is compared with figures; a backquoted value, without one, with those.
            kind = stated_figures if stated_figures(clause) else _code_values
            figures = set(kind(clause))
            # The whole sentence's words: "…, and Acme Proxy's is 60 seconds [1]" takes its
            # subject from the clause before (QA round 12 c08c).
            words = prose_words(sentence) - _value_words(figures)
            # Several backquoted values ("set `a` to `b`") are a key and its value, not
            # figures of one statement: only figures are held several at a time.
            if len(words) < MIN_WORDS or not figures or (len(figures) > 1 and kind is _code_values):
                continue
            lines = [
                (values, prose_words(s) - _value_words(values))
                for n in cited
                for s in SOURCE_SENTENCE.split(seen_text(by_n[n]))
                if (values := set(kind(s)))
            ]
            if any(_bound_elsewhere(figure, figures, words, lines) for figure in sorted(figures)):
                out.append(quoted_sentence(clause))
    return out


def _bound_elsewhere(
    figure: str, figures: set[str], words: set[str], lines: list[tuple[set[str], set[str]]]
) -> bool:
    """Whether `figure`, one of a clause's `figures`, belongs to a weaker statement than
    another sentence that the clause otherwise repeats. One figure: that sentence gives
    another figure and not this one. Several: it gives all the clause's other figures and,
    in this one's place, one the clause lacks ("starting at 1 second …, capped at 12 hours"
    for the page's "1 second …, capped at 5 minutes", 12 hours being another statement's
    ceiling: QA round 13 w34). A clause joining two statements, each figure from its own,
    has no sentence holding the rest with a figure of its own, so it passes."""
    rest = figures - {figure}
    owners = [words & w for f, w in lines if figure in f]
    others = [
        words & w
        for f, w in lines
        if figure not in f and rest <= f and (len(f) == len(figures) if rest else f)
    ]
    own = max((len(o) for o in owners), default=-1)
    other = max((len(o) for o in others), default=0)
    if own < 0 or other < own + MIN_BINDING_LEAD or other * 2 < len(words):
        return False
    # The clause names what the figure's own sentence is about and the other is not: "An
    # Enterprise license keeps working for 30 days after it expires", worded like the page's
    # sentence about the Team license's 14 days, its 30 in "Enterprise licenses have a 30-day
    # grace period" (blind QA round 17 r28).
    # One figure only: of several, each sentence names some of what the clause says (w34).
    best = max(others, key=len)
    return bool(rest) or not any(o - best for o in owners if len(o) == own)


# Sentences of an answer: a marker after the full stop stays with its sentence.
_ANSWER_SENTENCE = re.compile(r"(?<=[.!?])\s+(?!\[\d)|\n+")
# A value is a figure or a single backquoted token: "defaults to `debug`" for the page's
# "defaults to `info`. Set it to `debug` only while troubleshooting" (QA round 12 m08).
_CODE_VALUE = re.compile(r"`([^`\s]{1,40})`")


# A dotted setting name (`hooks.pre_backup`) is what a statement is about, not its value:
# held as a value, "When `hooks.pre_backup` fails …" was bound to the sentence naming both
# hooks and taken from the wrong statement (QA round 14 r08).
_SETTING_NAME = re.compile(r"[a-z_][\w-]*(?:\.[a-z_][\w-]*)+")


def _code_values(text: str) -> list[str]:
    return [f"`{v.lower()}`" for v in _CODE_VALUE.findall(text) if not _SETTING_NAME.fullmatch(v.lower())]


def _value_words(values: set[str]) -> set[str]:
    """The content words of backquoted values: a value does not count as a word beside it."""
    return set().union(*(content_stems(v.strip("`")) for v in values if v.startswith("`")))


def borrowed_subjects(answer: str, sources: list[dict[str, Any]], question: str = "") -> list[str]:
    """Cited clauses whose figures their own citations back but whose words include one
    those citations never use and another source the answer cites uses beside a figure:
    "The timeout is 1000 requests per minute [2]" where [2], the rate-limit page, never says
    "timeout" and [1], cited elsewhere in the answer, says "the timeout is 30 seconds" (QA
    round 9, s43: subjects swapped between two cited pages, each figure cited right)."""
    by_n = {s.get("n"): s for s in sources}
    stems = {n: content_stems(described_text(s)) for n, s in by_n.items()}
    clauses = [
        c for sentence, _ in cited_sentences(answer, by_n, held=False) for c in cited_clauses(sentence, by_n)
    ]
    cited_anywhere = {n for _, cited in clauses for n in cited}
    out: list[str] = []
    for clause, cited in clauses:
        figures = set(stated_figures(clause))
        if not figures or unbacked_numbers(clause, [by_n[n] for n in cited], question):
            continue  # no figure, or one its citations lack (`misplaced_figures`' case)
        stray = content_stems(CITATION_MARKER.sub(" ", clause)) - set().union(*(stems[n] for n in cited))
        if not stray:
            continue
        # The other page's sentence must give its word a different figure: one stating the
        # clause's own figure agrees with it ("probes: 1 by default" on two pages).
        others = [by_n[n] for n in cited_anywhere - set(cited)]
        if any(
            stray & content_stems(s) and not figures & set(stated_figures(s))
            for o in others
            for s in figure_sentences(o)
        ):
            out.append(quoted_sentence(clause))
    return out
