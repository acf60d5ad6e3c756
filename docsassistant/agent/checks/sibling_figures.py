"""Condition 9 of `grounded` the other way round: the asked term given its sibling's figure.

"Is the connect timeout 30 s?" answered yes, the cited page giving the connect timeout 10 s
and the request timeout 30 s (QA round 11 s60, s61). Terms are read as in `sibling_terms`;
measured by eval/sibling_figure_checks.py. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import FENCED_CODE, NUMBER_WORDS, stated_figures
from docsassistant.agent.checks.sibling_terms import as_written, figure_clauses, same_modifier, terms
from docsassistant.agent.citations import MARKER

# Sentences of a source, lines apart, a table row whole (its name and its value), code
# spans kept as words: the name a figure belongs to is often backquoted.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
_JOINED = re.compile(r"(?<=[A-Za-z])[_.](?=[A-Za-z])")
# A number that is part of a name ("Psycopg 3", "Claude 3.x", "GPT-5", "Example 1") gives
# no value to the words before it.
_NAMED_NUMBER = re.compile(r"\b([A-Z][A-Za-z]*)[ -]v?\d+(?:\.(?:\d+|x))*\b")
_URL = re.compile(r"\w+://\S+|\S+\.(?:png|jpe?g|svg|gif)\b")
_TOKEN = re.compile(r"[A-Za-z][\w-]*|\d[\d,.]*")
_SUBJECT_SPAN = 6  # words before a figure that may name what it is the figure of


def sibling_figures(text: str, sources: list[dict[str, Any]]) -> list[str]:
    """ "X is F" where the sources give X another figure and F belongs to X's sibling:
    "Is the connect timeout 30 s?" answered yes [1], [1] saying the connect timeout is 10 s
    and the request timeout 30 s (QA round 11 s60, s61). The figure is on the cited page, so
    the figure checks pass it. A figure's subject is a two-word term among the few words
    before it. Each clause of `text` giving its subject a figure is held to the source lines
    giving that subject figures: none gives this one, while a line of the same page gives
    it to a term with the same head and another modifier. `snake_case` and dotted names
    read as their words."""
    pages = [
        [(line, _subjects(line)) for line in _SENTENCE.split(_plain(s.get("content") or ""))] for s in sources
    ]
    out: list[str] = []
    for clause in figure_clauses(_plain(text)):
        for (modifier, head), figures in sorted(_subjects(clause).items()):
            own = [
                f
                for page in pages
                for _, line in page
                for term, f in line.items()
                if term == (modifier, head)
            ]
            if not own or any(figures & f for f in own):
                continue  # the sources give the term no figure, or this one
            for page in pages:
                if not any((modifier, head) in line for _, line in page):
                    continue
                rivals = [
                    (as_written(text, m, head), sorted(figures & f)[0])
                    for text, line in page
                    if (modifier, head) not in line
                    for (m, h), f in sorted(line.items())
                    if h == head and not same_modifier(m, modifier) and figures & f
                ]
                if rivals:
                    given = ", ".join(sorted(set().union(*own)))
                    rival, figure = rivals[0]
                    out.append(
                        f"the source gives {as_written(clause, modifier, head)} {given}; {figure} is its {rival}"
                    )
                    break
    return out


def _plain(text: str) -> str:
    text = _JOINED.sub(" ", _INLINE_CODE.sub(r"\1", _URL.sub(" ", FENCED_CODE.sub(" ", text))))
    return _NAMED_NUMBER.sub(r"\1", text)


def _subjects(line: str) -> dict[tuple[str, str], set[str]]:
    """Each two-word term of `line` among the words just before a figure, with the figures
    it is given ("connect timeout" → {"10"} in "The connect timeout is 10 s")."""
    out: dict[tuple[str, str], set[str]] = {}
    tokens = [m.group(0) for m in _TOKEN.finditer(MARKER.sub(" ", line))]
    for i, token in enumerate(tokens):
        # With the next word: "thirty seconds" states 30, "10 k" 10,000.
        figures = stated_figures(" ".join(tokens[i : i + 2]))[:1]
        if not figures or not (token[0].isdigit() or token.lower() in NUMBER_WORDS):
            continue
        before = tokens[max(0, i - _SUBJECT_SPAN) : i]
        for term in terms(" ".join(before)):
            out.setdefault(term, set()).update(figures)
    return out
