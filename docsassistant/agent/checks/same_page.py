"""Whether a cited page backs a figure from another of its retrieved chunks: part of
conditions 5 and 8 (docs/flags.md).

A citation names a page, and a model cites one chunk of it for what the page says across
two: "deprecated in 2.9.0 and removed in 3.0.0 [release notes § 3.0.0]", the § 2.9.0 chunk
retrieved too (QA round 14 r26). That figure is the page's. But "locked for 24 hours
[access control § Password policy]", the page's 24 hours being its token expiry in another
section (QA round 13 w33), is a figure taken from another statement. So the other chunk
backs the figure only where the line stating it shares a word with the answer's sentence
(figures and units aside); a heading line or section title ("2.9.0 (2023-08-15)") speaks
through its chunk's text. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, seen_text
from docsassistant.agent.checks.figures import stated_figures, unbacked_numbers
from docsassistant.agent.checks.words import content_stems

_HEADING = re.compile(r"^\s*(?:#{1,6}|={1,6})\s")
# A figure's own words say nothing of what it is about: "24 hours" shares "hours" with any
# other duration.
_FIGURE_WORDS = re.compile(
    r"\b\d[\d.,:-]*\s*(?:%|[kmgt]i?b|ms|s|seconds?|minutes?|hours?|days?|weeks?|months?|years?|bytes?|times)?\b",
    re.I,
)

# Words that place a figure rather than say what it is of ("after 24 hours", "5 by default").
_PLACING = frozenset("after before for per within every each over under than default least most".split())  # noqa: SIM905


def _about(text: str) -> set[str]:
    return content_stems(_FIGURE_WORDS.sub(" ", text)) - _PLACING


def other_chunks(cited: list[dict[str, Any]], sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sources from the cited sources' pages that are not cited themselves, injection-marked
    ones left out (they back nothing)."""
    paths = {s.get("source_path") for s in cited} - {None, ""}
    return [
        s for s in sources if s not in cited and s.get("source_path") in paths and not s.get("suspicious")
    ]


def page_backs(figure: str, sentence: str, chunks: list[dict[str, Any]]) -> bool:
    """Some line of `chunks` states `figure` and shares a content word with `sentence`
    (see the module docstring)."""
    words = _about(sentence)
    for chunk in chunks:
        text = seen_text(chunk)
        # A chunk's section title is its heading, kept beside the text rather than in it.
        headings = [h for h in (chunk.get("title"), chunk.get("section")) if h]
        for line in [*headings, *SOURCE_SENTENCE.split(text)]:
            if unbacked_numbers(figure, [{"content": line}]):
                continue
            context = text if line in headings or _HEADING.match(line) else line
            if words & _about(context):
                return True
    return False


def unbacked_on_the_page(answer: str, figures: list[str], chunks: list[dict[str, Any]]) -> list[str]:
    """Those of `figures` (unbacked by the cited chunks) that no sentence of `answer`
    stating them finds backed by `chunks`, the cited pages' other chunks."""
    if not chunks:
        return figures
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if s.strip()]
    return [
        f for f in figures if not any(page_backs(f, s, chunks) for s in sentences if f in stated_figures(s))
    ]
