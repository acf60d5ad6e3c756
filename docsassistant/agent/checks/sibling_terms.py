"""Answers about a neighbouring setting: the question asks for one term, the answer speaks
of its sibling.

Asked for the connect timeout, a model answers with the request timeout the same page
gives ("The request timeout is 30 seconds [1]"; QA round 10 s08). Every sentence is in its
source, so every check of support passes it; the reader takes the figure for the one asked.
Looked for in two-word terms: the question's term (a modifier and a head, "connect
timeout") that the sources use, while the answer never uses its modifier and names another
term with the same head, given a figure, that the same source names ("request timeout").
Pure functions, no model call. Measured on the docs-QA sets (top-10 hits as sources): no fire
on the gold answers (0 of 104) or on their evidence sentences given as answers (0 of 144);
synthetic swaps between two figure sentences of one retrieved chunk, dev 38 of 41 caught,
test 14 of 19 (prose only: 20 of 21, 3 of 3), the asked term's own sentence never flagged.
The same swap the other way round, the asked term given its sibling's figure ("Is the
connect timeout 30 s?" answered yes), is `sibling_figures.py`'s; measured by
eval/sibling_figure_checks.py. Sibling names ("Acme Proxy" answered for "Acme Gateway") are
`sibling_names.py`'s, a figure given another name's label `figure_labels.py`'s.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures
from docsassistant.agent.checks.words import content_stems, first_content_stem
from docsassistant.agent.citations import MARKER
from docsassistant.agent.standalone import FOLLOW_UP

_WORD = re.compile(r"[A-Za-z][\w.-]*[A-Za-z0-9]|[A-Za-z]")
_BREAK = re.compile(r"[.,;:!?()\[\]\n]")
_NOT_MODIFIERS = frozenset(
    "each every per during any all some both either neither another other several many few "  # noqa: SIM905
    "most much such own same via within without between among across after before since "
    "until upon toward towards onto".split()
)


def terms(text: str) -> set[tuple[str, str]]:
    """The text's two-word terms, stemmed: adjacent content words within a clause, the
    first not a word of place or quantity ("per tenant", "each metric")."""
    out: set[tuple[str, str]] = set()
    for part in _BREAK.split(text):
        words = _WORD.findall(part)
        stems = [None if w.lower() in _NOT_MODIFIERS else first_content_stem(w) for w in words]
        out.update((a, b) for a, b in itertools.pairwise(stems) if a and b and a != b)
    return out


def sibling_terms(answer: str, question: str, sources: list[dict[str, Any]]) -> list[str]:
    """ "asked X, answered Y" for each term of the question the answer swapped for a
    sibling (see the module docstring); the terms are shown as the question and the answer
    wrote them."""
    text = MARKER.sub(" ", answer)
    said = content_stems(text)
    per_source = [terms(s.get("prompt_text") or s.get("content") or "") for s in sources]
    figured = set().union(*(terms(c) for c in figure_clauses(answer)))
    out: list[str] = []
    message, _, followed = question.partition(FOLLOW_UP)  # the message's own terms first
    for modifier, head in sorted(terms(message) or terms(followed)):
        if modifier in said:
            continue
        # Siblings: one page names both terms (the connect and the request timeout).
        rivals = sorted(
            m
            for m, h in figured
            if h == head
            and not same_modifier(m, modifier)
            and any({(modifier, head), (m, h)} <= t for t in per_source)
        )
        if rivals:
            out.append(
                f"asked about {as_written(question, modifier, head)}, answered about {as_written(text, rivals[0], head)}"
            )
    return out


CLAUSE_BREAK = re.compile(r"[;\n]|(?<=[.!?])\s+")  # where an answer's clauses (and sentences) meet


def figure_clauses(answer: str) -> list[str]:
    """The clauses of the answer that state a figure, as condition 5 reads figures ("30
    seconds", "thirty seconds", a bare `30`; not "SSE4.2"), code blocks left out: a sibling
    is a problem when its value is given."""
    clauses = CLAUSE_BREAK.split(MARKER.sub(" ", FENCED_CODE.sub(" ", answer)))
    return [c for c in clauses if stated_figures(c)]


def same_modifier(first: str, second: str) -> bool:
    """One modifier, written in full or cut short ("max" and "maximum")."""
    return first.startswith(second) or second.startswith(first)


def as_written(text: str, modifier: str, head: str) -> str:
    """The two words of a stemmed term as `text` writes them."""
    words = _WORD.findall(text)
    for first, second in itertools.pairwise(words):
        if content_stems(first) == {modifier} and content_stems(second) == {head}:
            return f"{first} {second}"
    return f"{modifier} {head}"
