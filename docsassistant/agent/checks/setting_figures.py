"""A figure given for one setting that its cited source states only for another: part of
condition 8 (docs/flags.md).

"And its maximum?", asked after "What is the default of backup.parallel_uploads?", answered
"The maximum is 64 [1]", [1] saying "Raise this with `restore.parallel_downloads` (maximum
64)" (QA round 14 w27). The figure is on the cited page and the sentence has no other word
to judge, so the figure and word checks pass it; the setting it is about is the question's.

A figure is about the settings its part of the sentence names (backquoted dotted names,
`backup.uploads` or `backup.uploads: 4`), else, when the sentence names none, about those
its question names (the standalone question of a follow-up). It must sit, in a cited
source, in a sentence or table row
naming one of those settings or naming none: a figure the cited sources state only beside
other settings was taken from another setting's statement. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import (
    SOURCE_SENTENCE,
    cited_clauses,
    quoted_sentence,
    seen_text,
)
from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures

_DOTTED = r"[a-z_][\w-]*(?:\.[a-z_][\w-]*)+"
_QUOTED = re.compile(rf"`({_DOTTED})(?:\s*[:=][^`]*)?`", re.I)  # `key` or `key: value`
_BARE = re.compile(rf"(?<![\w./-])({_DOTTED})(?![\w/-])", re.I)
ANSWER_SENTENCE = re.compile(r"(?<=[.!?])\s+(?!\[\d)|\n+")  # a marker after the full stop stays


def setting_names(text: str) -> set[str]:
    """The backquoted dotted setting names of `text`, lower-cased."""
    return {m.lower() for m in _QUOTED.findall(text)}


def asked_settings(question: str, known: set[str]) -> set[str]:
    """Settings a question names: backquoted, or bare and known to the sources (a bare
    "config.yaml" or "e.g." is no setting)."""
    bare = {m.lower().rstrip(".") for m in _BARE.findall(question)}
    return setting_names(question) | (bare & known)


def figures_of_other_settings(
    answer: str, cited_sources: list[dict[str, Any]], seen: list[dict[str, Any]], question: str = ""
) -> list[str]:
    """Cited clauses whose figures their cited sources state only beside other settings than
    the clause's (or its question's): see the module docstring."""
    by_n = {s.get("n"): s for s in cited_sources}
    known = set().union(*(setting_names(seen_text(s)) for s in seen)) if seen else set()
    asked = asked_settings(question, known)
    out: list[str] = []
    for sentence in ANSWER_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        named = setting_names(sentence)
        for clause, cited in cited_clauses(sentence, by_n):
            lines = [
                line for n in cited for line in SOURCE_SENTENCE.split(seen_text(by_n[n])) if line.strip()
            ]
            for figure in stated_figures(clause):
                about = _about(figure, clause, named, asked)
                stating = [setting_names(line) for line in lines if figure in stated_figures(line)]
                if about and stating and all(names and not names & about for names in stating):
                    out.append(quoted_sentence(clause))
                    break
    return out


# Where a sentence's statements meet: "… every 6 hours (`backup.interval`), and snapshots
# are kept for 7 days" gives its 7 days of no setting it names (QA round 13 r20).
_PART = re.compile(r";\s+|,?\s+(?:and|but|while|whereas)\s+")


def _about(figure: str, clause: str, named: set[str], asked: set[str]) -> set[str]:
    """The settings `figure` is given for: those its part of the clause names; the question's
    when the whole sentence names none; else none (a figure beside another part's setting
    may be of something else)."""
    parts = [p for p in _PART.split(clause) if figure in stated_figures(p)]
    own = set().union(*map(setting_names, parts)) if parts else set()
    return own or (asked if not named else set())


def figure_settings(clause: str, named: set[str], asked: set[str] | None = None) -> list[tuple[str, str]]:
    """(figure, setting) for each figure of `clause` and each setting it is given for;
    `named`: the settings its whole sentence names, `asked`: the question's."""
    return [
        (f, name) for f in stated_figures(clause) for name in sorted(_about(f, clause, named, asked or set()))
    ]
