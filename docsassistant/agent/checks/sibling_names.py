"""Condition 9 of `grounded` for names: a product asked about, its sibling answered.

Two capitalised words name a product and its part ("Acme Gateway"); the question names one,
and the answer (`sibling_names`), the sources it cites (`sibling_sources`) or a cited
clause's own source (`sibling_citations`) speak of another with the same first word ("Acme
Proxy"). The user's name comes first: a follow-up naming another asks about that one. Pure
functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import cited_clauses, cited_sentences, quoted_sentence
from docsassistant.agent.checks.sibling_terms import figure_clauses
from docsassistant.agent.citations import MARKER
from docsassistant.agent.standalone import FOLLOW_UP

# Two capitalised words: a product and its part ("Acme Gateway", "Spring AI").
_NAME_PAIR = re.compile(r"\b([A-Z][\w-]*)\s+([A-Z][\w-]*)")
_OPENERS = frozenset("a an the in on at for with when where which what how can does do is are if i".split())  # noqa: SIM905


def sibling_names(answer: str, question: str) -> list[str]:
    """ "asked X, answered Y" when the question names a two-word name ("Acme Gateway") and
    the answer, never using its second word, gives a figure for another name with the same
    first word ("Acme Proxy"): QA round 10 s20, "its idle timeout" after a turn about the
    gateway answered for the proxy. No source is needed: the name asked is the user's. On the
    docs-QA sets (59 of 104 questions name such a pair) it fires on none of the gold answers
    and none of their evidence sentences given as answers (0 of 104, 0 of 144)."""
    # The message's own names come first: "What about Acme Proxy? (follow-up to: … Acme
    # Gateway …)" asks about the proxy. The question followed up counts when it names none.
    message, _, followed = question.partition(FOLLOW_UP)
    asked = _names(message) or _names(followed)
    said = answer.lower()
    out: list[str] = []
    for clause in figure_clauses(answer):
        for first, second in _NAME_PAIR.findall(clause):
            for name, part in sorted(asked):
                if first.lower() == name and second.lower() != part and part not in said:
                    found = f"asked about {name.title()} {part.title()}, answered about {first} {second}"
                    if found not in out:
                        out.append(found)
    return out


def _any_number(word: str) -> re.Pattern[str]:
    """The word as a whole word, singular or plural ("Mac", "Macs"; "SSDs", "SSD")."""
    base = (
        word[:-1]
        if len(word) > 3 and word.lower().endswith("s") and not word.lower().endswith("ss")
        else word
    )
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(base)}(?:e?s)?(?![A-Za-z0-9])", re.I)


def sibling_sources(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """ "asked X, answered from Y's page" when the question names a two-word name ("Acme
    Gateway"), neither the answer nor any source it cites uses its second word, and a cited
    source names another name with the same first word ("Acme Proxy"): "It accepts 4,000
    connections [1]" after "And how many connections does it accept?" about the gateway,
    [1] being the proxy's page (QA round 11 s20, s45). `sibling_names` needs the other name
    in the answer; here the answer names nothing and its sources speak for it. On the
    docs-QA sets (35 of 104 questions name such a pair, the gold answers cited to the text
    around their evidence) it fires on none."""
    message, _, followed = question.partition(FOLLOW_UP)
    asked = _names(message) or _names(followed)
    texts = [
        f"{s.get('title') or ''}\n{s.get('section') or ''}\n{s.get('content') or ''}" for s in cited_sources
    ]
    out: list[str] = []
    for name, part in sorted(asked):
        word = _any_number(part)
        if not texts or word.search(answer) or any(word.search(text) for text in texts):
            continue
        others = sorted(
            {
                f"{a} {b}"
                for text in texts
                for a, b in _NAME_PAIR.findall(text)
                if a.lower() == name
                and not word.fullmatch(b)
                # "And the proxy? (follow-up to: … Acme Gateway …)" asks about the proxy
                and not re.search(rf"(?<![A-Za-z0-9]){re.escape(b)}(?![A-Za-z0-9])", message, re.I)
            }
        )
        if others:
            out.append(f"asked about {name.title()} {part.title()}, answered from a source about {others[0]}")
    return out


def sibling_citations(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Cited clauses naming a two-word name ("Acme Gateway") whose second word none of the
    clause's cited sources uses, while one of them names a sibling ("Acme Proxy"): "The
    default cache size of Acme Gateway is 512 MB [proxy page]" (QA round 12 m36). Quoted as
    the flag quotes sentences."""
    by_n = {s.get("n"): s for s in sources}
    texts = {
        n: f"{s.get('title') or ''}\n{s.get('section') or ''}\n{s.get('content') or ''}"
        for n, s in by_n.items()
    }
    out: list[str] = []
    for sentence, _ in cited_sentences(answer, by_n, held=False):
        for clause, cited in cited_clauses(sentence, by_n):
            for first, second in _names(MARKER.sub(" ", clause)):
                word = _any_number(second)
                if any(word.search(texts[n]) for n in cited):
                    continue
                siblings = [
                    b
                    for n in cited
                    for a, b in _NAME_PAIR.findall(texts[n])
                    if a.lower() == first and not word.fullmatch(b)
                ]
                if siblings and quoted_sentence(clause) not in out:
                    out.append(quoted_sentence(clause))
    return out


def _names(text: str) -> set[tuple[str, str]]:
    return {(a.lower(), b.lower()) for a, b in _NAME_PAIR.findall(text) if a.lower() not in _OPENERS}
