"""A settings table's maximum given as the default, or its default as the maximum: part of
condition 5 (docs/flags.md).

"By default the agent uploads 32 chunks at the same time (`backup.parallel_uploads`) [1]",
[1] being the row "| `backup.parallel_uploads` | 4 | maximum 32 | … |" under the header
"| setting | default | allowed values / maximum | … |" (QA round 14 w04). Both figures are in
the cited row, so the figure check passes it, and `units.swapped_defaults` reads roles from
words ("defaults to", "up to"), which a table gives in its header instead.

A table counts when its header has a default column and a bound column (maximum, minimum,
limit, range, allowed values). An answer sentence naming one row's setting and speaking of
the default (or of a bound, not both) must not give that row's other figure for it.
Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, table_body_rows
from docsassistant.agent.checks.figures import FENCED_CODE, NUMBER_WORD, stated_figures, word_number
from docsassistant.agent.checks.units import quantities, same_quantity

DEFAULT_HEADER = re.compile(r"\bdefault", re.I)
_BOUND_HEADER = re.compile(r"\b(?:max|maximum|min|minimum|limit|range|allowed)\b", re.I)
# "Out of the box …" and "if you change nothing" say default too (QA round 15 w06).
SAYS_DEFAULT = re.compile(
    r"\bdefaults?\b|\bout of the box\b|\bif you (?:don'?t|do not) change\b|\bunless (?:you )?change", re.I
)
_SAYS_BOUND = re.compile(
    r"\b(?:max|maximum|minimum|at\s+most|at\s+least|up\s+to|limit(?:ed)?|cap(?:ped)?|no\s+more\s+than|ceiling|"
    r"highest|lowest|range)\b",
    re.I,
)


# "15 m" apart from its number is left alone in prose (metres?), but in a row that is a
# duration, or that gives its range in seconds or hours, it is minutes (blind QA round 20 w31:
# "| `copy_delay` | duration | 15 m | 0 – 24 h |", 5 m being `retry_interval`'s).
_DURATION_ROW = re.compile(r"\b(?:duration|interval|timeout|delay)\b|\d\s?(?:ms|s|h|d)\b", re.I)
_SPACED_MINUTES = re.compile(r"\b(\d+(?:\.\d+)?)\s+m\b")


class Row:
    """A table row's setting name, the figures of its default and bound columns, and the times
    and sizes of all its cells but the name, as (text, kind, value in the kind's base unit)."""

    def __init__(
        self,
        key: str,
        defaults: set[str],
        bounds: set[str],
        amounts: list[tuple[str, str, float]] | None = None,
    ) -> None:
        self.key, self.defaults, self.bounds = key, defaults, bounds - defaults
        self.amounts = amounts or []


def table_rows(text: str) -> list[Row]:
    """The rows of `text`'s Markdown tables that have a default and a bound column."""
    rows: list[Row] = []
    for header, cells in table_body_rows(text):
        default = [i for i, h in enumerate(header) if DEFAULT_HEADER.search(h)]
        bound = [i for i, h in enumerate(header) if _BOUND_HEADER.search(h) and i not in default]
        if not default or not bound or len(cells) != len(header):
            continue
        key = cells[0].strip("` ").lower()
        figures = [set(stated_figures(cells[i])) for i in range(len(cells))]
        if _DURATION_ROW.search(" ".join(cells[1:])):
            cells = [_SPACED_MINUTES.sub(r"\1m", c) for c in cells]
        amounts = [(m.group(0), kind, value) for cell in cells[1:] for m, kind, _, value in quantities(cell)]
        rows.append(
            Row(
                key,
                set().union(*(figures[i] for i in default)),
                set().union(*(figures[i] for i in bound)),
                amounts,
            )
        )
    return rows


def names_setting(sentence: str, key: str) -> bool:
    """The sentence names the setting: in full, or by its last part when that is distinctive.
    As a whole word: `enable` is not named by "autoEnable" (a namespace before it is fine)."""
    text = sentence.lower().replace("`", "")
    last = key.rsplit(".", 1)[-1]
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text) is not None or (
        ("_" in last or len(last) >= 10) and re.search(rf"\b{re.escape(last)}\b", text) is not None
    )


# "can be set anywhere from 1 to 100", "between 1 and 100": the row's range, stated as one.
_RANGE = re.compile(r"\b(?:from|between)\s+(\S+)\s+(?:to|and)\s+(\S+)", re.I)


def _without_ranges(sentence: str, row: Row) -> str:
    """`sentence` without the ranges that give exactly figures of the row's bound column: a
    default sentence that restates the range beside it gives the default no figure (blind QA
    round 19 r11: "after five deliveries …, and it can be set anywhere from 1 to 100" was read
    as 1 for the default)."""

    def drop(m: re.Match[str]) -> str:
        return " " if set(stated_figures(m.group(0))) <= row.bounds else m.group(0)

    return _RANGE.sub(drop, sentence)


def settings_named(answer: str, keys: set[str]) -> list[tuple[str, set[str]]]:
    """Each prose sentence of `answer` with the settings of `keys` it names. A sentence naming
    none that says default takes the one setting its paragraph's next sentence (else its
    previous one) names alone: "By default the vault accepts uploads of up to 256 MiB. The
    setting is `request_body_max` …" speaks of `request_body_max`'s default (blind QA round 20
    w02, w27). Only a default: "Clients refresh metadata at least every five minutes. The
    interval is metadata_max_age, …" gives no bound of it (blind QA round 19 r17)."""
    out: list[tuple[str, set[str]]] = []
    for paragraph in re.split(r"\n\s*\n", FENCED_CODE.sub(" ", answer)):
        sentences = [s for s in SOURCE_SENTENCE.split(paragraph) if s.strip()]
        named = [{k for k in keys if k and names_setting(s, k)} for s in sentences]
        for i, sentence in enumerate(sentences):
            own = named[i]
            if not own and SAYS_DEFAULT.search(sentence):
                beside = [named[j] for j in (i + 1, i - 1) if 0 <= j < len(sentences)]
                own = next((n for n in beside if len(n) == 1), set())
            out.append((sentence, own))
    return out


def swapped_table_roles(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Figures an answer gives a setting in the other role than its cited table's row does
    (see the module docstring), as "32 as the default of backup.parallel_uploads"."""
    rows = [r for s in cited_sources for r in table_rows(str(s.get("content") or ""))]
    out: list[str] = []
    for sentence, keys in settings_named(answer, {r.key for r in rows}):
        named = [r for r in rows if r.key in keys]
        says_default, says_bound = bool(SAYS_DEFAULT.search(sentence)), bool(_SAYS_BOUND.search(sentence))
        if len({r.key for r in named}) != 1 or not (says_default or says_bound):
            continue  # no setting or several; no role
        for row in named:
            figures = set(stated_figures(_without_ranges(sentence, row) if says_default else sentence))
            # Both roles in one sentence: "defaults to 4 and can go up to 32" gives each its
            # figure; "Out of the box … accepts up to 5,000" gives the default none, only the
            # bound (blind QA round 16 w07), and is read as giving the default.
            if says_default and says_bound and figures & row.defaults:
                continue
            own, other = (row.defaults, row.bounds) if says_default else (row.bounds, row.defaults)
            wrong = sorted(figures & other - own)
            if wrong and not figures & own:
                role = "default" if says_default else "limit"
                out.append(f"{wrong[0]} as the {role} of {row.key}")
                break
    return out


def figures_of_other_rows(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Times and sizes an answer sentence gives the one setting it names that its settings-table
    row does not hold but another row of the cited tables does, as "10 seconds for
    request_timeout" (blind QA round 19 w33: "waits up to ten seconds for any single broker
    response, set by request_timeout", the row "| `request_timeout` | 30 s | 1 s – 10 m |",
    10 s being `connect_timeout`'s). The figure check finds the 10 in the chunk; the unit and
    the row are what is wrong. Held to equal quantities ("half a minute" is 30 s); a figure no
    row holds is left to the figure checks."""
    rows = [r for s in cited_sources for r in table_rows(str(s.get("content") or ""))]
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        named = {r.key for r in rows if r.key and names_setting(sentence, r.key)}
        if not named:
            continue
        # Several named: which of them a figure belongs to is the binding check's question,
        # but one no named row holds and another row does is still another setting's
        # ("a heartbeat every five seconds … heartbeat_interval … session_timeout", the 5 s
        # being auto_commit_interval's: blind QA round 19 w32).
        key = " / ".join(sorted(named))
        own = [a for r in rows if r.key in named for a in r.amounts]
        others = [a for r in rows if r.key not in named for a in r.amounts]
        for match, kind, _, value in quantities(sentence):
            if not any(k == kind for _, k, _ in own):
                continue  # "4 MiB … or the batch_timeout of two seconds": a size is no timeout's (21 r14)
            if not any(k == kind and same_quantity(v, value) for _, k, v in own) and any(
                k == kind and same_quantity(v, value) for _, k, v in others
            ):
                out.append(f"{match.group(0)} for {key}")
                break
    return out


def defaults_of_other_rows(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Figures an answer sentence gives as the default of the one setting it names that its
    row does not hold but another row gives as its default, as "7 as the default of
    keep_weekly" (blind QA round 20 w30: "By default the vault keeps seven weekly snapshots
    (`keep_weekly`)", the row's default 4, 7 being `keep_daily`'s). Number words count here
    ("seven"): a sentence that says default is about a value. A sentence that also gives one
    of its row's own figures is left alone."""
    rows = [r for s in cited_sources for r in table_rows(str(s.get("content") or ""))]
    out: list[str] = []
    for sentence, named in settings_named(answer, {r.key for r in rows}):
        if len(named) != 1 or not SAYS_DEFAULT.search(sentence):
            continue
        key = named.pop()
        own = set().union(*(r.defaults | r.bounds for r in rows if r.key == key))
        others = set().union(*(r.defaults for r in rows if r.key != key)) - own
        text = _without_ranges(sentence, next(r for r in rows if r.key == key))
        figures = set(stated_figures(text)) | {
            n for m in NUMBER_WORD.finditer(text) if (n := word_number(m.group(0)))
        }
        if figures & others and not figures & own:
            out.append(f"{sorted(figures & others)[0]} as the default of {key}")
    return out
