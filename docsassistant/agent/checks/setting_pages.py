"""One setting, two pages, two figures: the answer gives the page the question is not about.

"How many weekly snapshots does the Vault keep when it prunes?" answered "It keeps 4 weekly
snapshots by default (`retention.keep_weekly`) [agent's retention page]" (QA round 14 w28):
the agent's page and the Vault's both have a `retention.keep_weekly` row, 4 and 8; the
Vault's row says "weekly snapshots the Vault keeps when it prunes". The figure, the name
and every word are on the cited page, so the other checks pass it.

A figure an answer gives for a setting (`setting_figures.figure_settings`) from a cited line
naming that setting is held against the lines of other retrieved pages naming the same
setting with another figure: when such a line shares `MIN_LEAD` more of the question's words
than the cited one, the answer is about another page's setting than the one asked about. Part
of condition 9 (off the question). Pure functions, no model call.
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
from docsassistant.agent.checks.setting_figures import (
    ANSWER_SENTENCE,
    asked_settings,
    figure_settings,
    setting_names,
)
from docsassistant.agent.checks.words import content_stems

MIN_LEAD = 2  # question words by which the other page's line must beat the cited one


def _lines(source: dict[str, Any], name: str) -> list[tuple[set[str], set[str]]]:
    """(figures, words) of each line of `source` naming the setting `name`, the name's own
    words and the figures left out of the words."""
    own = content_stems(name.replace(".", " ").replace("_", " "))
    return [
        (set(stated_figures(line)), content_stems(re.sub(r"`[^`]*`|\d[\d.,]*", " ", line)) - own)
        for line in SOURCE_SENTENCE.split(seen_text(source))
        if name in setting_names(line)
    ]


def settings_of_another_page(
    answer: str, cited_sources: list[dict[str, Any]], sources: list[dict[str, Any]], question: str
) -> list[str]:
    """Cited clauses giving a setting's figure from a page whose line for it matches the
    question worse than another retrieved page's line giving it another figure."""
    asked = content_stems(question)
    known = set().union(*(setting_names(seen_text(s)) for s in sources)) if sources else set()
    names = asked_settings(question, known)
    by_n = {s.get("n"): s for s in cited_sources}
    out: list[str] = []
    for sentence in ANSWER_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for clause, cited in cited_clauses(sentence, by_n):
            # A page the answer cites anywhere is one it answers from, not one it missed: "…
            # raise it to 2 TiB [2]. That ceiling is new in 5.2, before it was 1 TiB [4]"
            # (blind QA round 16 r02, the release note's "from 1 TiB to 2 TiB" no rival).
            paths = {s.get("source_path") for s in cited_sources}
            others = [s for s in sources if s.get("n") not in by_n and s.get("source_path") not in paths]
            for figure, name in figure_settings(clause, setting_names(sentence), names):
                mine = [w for n in cited for figures, w in _lines(by_n[n], name) if figure in figures]
                rival = [
                    (len(asked & w), sorted(figures)[0], o.get("source_path") or "another source")
                    for o in others
                    for figures, w in _lines(o, name)
                    if figures and figure not in figures
                ]
                best = max(rival, default=None)
                if mine and best and best[0] >= max(len(asked & w) for w in mine) + MIN_LEAD:
                    out.append(
                        f"{quoted_sentence(clause)!r} gives `{name}` as {figure}; {best[2]}, closer to the "
                        f"question, gives it as {best[1]}"
                    )
                    break
    return out
