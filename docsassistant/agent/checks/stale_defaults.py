"""A setting's old default given as its default: part of condition 7 of `grounded`
(docs/flags.md).

"In 5.3, `upload_streams` defaults to 2 [1]", a source the writer saw saying "`upload_streams`
now defaults to 4 (was 2)" (blind QA round 20 w28). The 2 is on the page, so the figure check
passes it; it is the value the release notes retired.

A source line records a change of default when it names a backquoted setting and gives its
old and new values: "`x` changed from A to B", "`x` now defaults to B (was A)", "the default
of `x` changed from A to B". An answer sentence naming that setting, saying default, and
giving A but not B, without speaking of the past ("was", "used to", "before", "previously",
"old", "until", "earlier"), is flagged. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, quoted_sentence
from docsassistant.agent.checks.figures import NUMBER_WORD, stated_figures, word_number
from docsassistant.agent.checks.table_roles import SAYS_DEFAULT, settings_named

_UNIT = r"(?:\s?(?:ms|s|m|h|d|[KMGT]i?B|bytes|seconds?|minutes?|hours?|days?))?"


def _value_group(name: str) -> str:
    """A value written in a change note, as the named group `name`: a backquoted value, or a
    word or figure with its unit."""
    return rf"(?P<{name}>`[^`]+`|[\w.%-]+{_UNIT})"


_CHANGES = (
    re.compile(
        rf"`(?P<key>[^`\s]+)`[^.;]*?\bchanged from {_value_group('old')} to {_value_group('new')}", re.I
    ),
    re.compile(
        rf"`(?P<key>[^`\s]+)`[^.;]*?\bnow defaults to {_value_group('new')}[^.;(]*"
        rf"\(\s*(?:was|previously|formerly)\s+{_value_group('old')}\s*\)",
        re.I,
    ),
)
_PAST = re.compile(
    r"\b(?:was|were|used to|before|previously|formerly|old|older|earlier|until|prior|defaulted)\b", re.I
)


def default_changes(text: str) -> list[tuple[str, str, str]]:
    """(setting, old value, new value) for each change of default `text` records, lower-cased."""
    out: list[tuple[str, str, str]] = []
    for line in SOURCE_SENTENCE.split(text):
        for pattern in _CHANGES:
            for m in pattern.finditer(line):
                old, new = (_value(m.group(g)) for g in ("old", "new"))
                if old and new and old != new:
                    out.append((m.group("key").lower(), old, new))
    return out


def _value(text: str) -> str:
    """A value as compared: its figure, else its text without backquotes."""
    figures = stated_figures(text)
    return figures[0] if figures else text.strip("` ").lower()


def _said(sentence: str) -> set[str]:
    """The figures and backquoted values of a sentence, number words read as figures."""
    words = {n for m in NUMBER_WORD.finditer(sentence) if (n := word_number(m.group(0)))}
    quoted = {v.strip().lower() for v in re.findall(r"`([^`]+)`", sentence)}
    return set(stated_figures(sentence)) | words | quoted


def stale_defaults(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences giving a setting's old default as its default (see the module docstring)."""
    changes = [c for s in sources for c in default_changes(str(s.get("content") or ""))]
    out: list[str] = []
    # A sentence naming no setting speaks of the one its neighbour names (`settings_named`).
    for sentence, named in settings_named(answer, {key for key, _, _ in changes}):
        if not SAYS_DEFAULT.search(sentence) or _PAST.search(sentence):
            continue
        said = _said(sentence)
        for key, old, _ in changes:
            # Another note making the old value new again ("Float to Double", then "Double to
            # Float" elsewhere) leaves it current as far as the sources tell.
            current = {n for k, _, n in changes if k == key}
            if key in named and old in said and not said & current:
                out.append(quoted_sentence(sentence))
                break
    return out
