"""Figures labelled by the name before them ("TLS 1.2", "MySQL 8.0"), held to that name.

Part of condition 9 of `grounded` (docs/flags.md), a figure said of the wrong name:
`relabelled_figures`, a figure the cited sources give that label only other figures of
(unsupported); `figure_of_another_name`, an unlabelled figure the sources give to a name
the question does not ask about (`off_question`). Measured by eval/label_checks.py. Pure
functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import FENCED_CODE, stated_figures
from docsassistant.agent.citations import MARKER

# A figure labelled by the name just before it: "TLS 1.2", "HTTP/1.1", "MySQL 8.0", "Python 3.9".
_LABELLED = re.compile(r"(?<![\w./-])([A-Z][A-Za-z0-9+#]*)(?: |/|-| v)(\d+(?:\.\d+)*)(?![\w.]*\d)")


# Capitalised words before a number that name no thing: "In 1.0", "Step 2", "Example 3".
_NOT_LABELS = frozenset(
    "in on at by for from since until to up after before as with and or of the a an if "  # noqa: SIM905
    "option step example issue part section chapter table figure phase stage level note tip "
    "rule case item point page line type method approach scenario stage task test".split()
)


def _version_key(figure: str) -> str:
    """One spelling per version: "2.0.0", "2.0" and "2" are one (a label's figure is often a version)."""
    return re.sub(r"(?:\.0+)+$", "", figure.replace(",", "")) or "0"


def _labels(text: str) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(figures by label, labels by figure), labels lower-cased."""
    by_label: dict[str, set[str]] = {}
    by_figure: dict[str, set[str]] = {}
    for label, written in _LABELLED.findall(text):
        if label.lower() in _NOT_LABELS:
            continue
        figure = _version_key(written)
        by_label.setdefault(label.lower(), set()).add(figure)
        by_figure.setdefault(figure, set()).add(label.lower())
    return by_label, by_figure


def relabelled_figures(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Figures the answer gives a name ("TLS 1.1") that the cited sources give that name only
    other figures of ("TLS 1.2 and TLS 1.3", their 1.1 being HTTP/1.1's; QA round 12 m47), as
    the answer wrote them. The figure is on the page, so condition 5 passes it."""
    by_label, _ = _labels(" \n".join(str(s.get("content") or "") for s in cited_sources))
    out: list[str] = []
    for match in _LABELLED.finditer(MARKER.sub(" ", FENCED_CODE.sub(" ", answer))):
        label, figure = match.group(1).lower(), _version_key(match.group(2))
        if label not in _NOT_LABELS and by_label.get(label) and figure not in by_label[label]:
            out.append(match.group(0))
    return out


def figure_of_another_name(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """ "asked about X, answered with F, which the sources give Y": the answer states a figure
    without a name, the question names X, and the cited sources give X other figures and F
    to another name the question does not ask about: "The minimum version is 8.0" for the
    first of "PostgreSQL 14 or later, MySQL 8.0 or later" (QA round 12 m12)."""
    by_label, by_figure = _labels(" \n".join(str(s.get("content") or "") for s in cited_sources))
    prose = MARKER.sub(" ", FENCED_CODE.sub(" ", answer))
    named = {_version_key(figure) for _, figure in _LABELLED.findall(prose)}
    asked = {w.lower() for w in re.findall(r"\b[A-Z][A-Za-z0-9+#]+", question)}
    out: list[str] = []
    for figure in map(_version_key, stated_figures(prose)):
        others = sorted(by_figure.get(figure, set()) - asked)
        if figure in named or not others or re.search(rf"\b{re.escape(others[0])}\b", prose, re.I):
            continue
        for name in sorted(asked & set(by_label)):
            if figure not in by_label[name]:
                out.append(f"asked about {name}, answered with {figure}, which the sources give {others[0]}")
                break
    return out
