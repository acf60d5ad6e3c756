"""A figure stated with another unit than its source gives it ("500 seconds" for the page's
500 ms, "100 requests per minute" for its per second): condition 5 finds the 500 and the
100 in the source and looks no further (QA round 10, s01 and s24).

A figure is compared only when every place its cited sources state it carries a unit of the
same kind (time, size, or a rate per unit of time) and none is the answer's: a bare 500
anywhere in the sources, or a unit of another kind, leaves it alone.

The same holds for the bound a figure is given: "at least 64 GB" for the page's "up to 64
GB" turns a ceiling into a floor (QA round 11 s65), and for what it counts (`counts.py`).
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import COMPOUND_NUMBER, NUMBER_WORDS, figure_key, word_number
from docsassistant.agent.checks.setting_figures import ANSWER_SENTENCE, setting_names
from docsassistant.agent.checks.words import stem

_ALIASES = {
    "time": {
        "ms": "ms msec msecs millisecond milliseconds",
        "s": "s sec secs second seconds",
        "min": "min mins minute minutes",
        "h": "h hr hrs hour hours",
        "d": "d day days",
        "wk": "wk wks week weeks",  # "7 weeks" for the page's 7 days (QA round 11 s16)
        "mo": "month months",
        "yr": "yr yrs year years",
    },
    "size": {
        "b": "b byte bytes",
        "kb": "kb kib kilobyte kilobytes",
        "mb": "mb mib megabyte megabytes",
        "gb": "gb gib gigabyte gigabytes",
        "tb": "tb tib terabyte terabytes",
        "pb": "pb pib petabyte petabytes",
    },
}
_UNIT = {
    alias: (kind, unit)
    for kind, units in _ALIASES.items()
    for unit, names in units.items()
    for alias in names.split()
}
# Each kind's unit words as the word checks stem them ("second", "mib"; single letters left out).
_UNIT_WORDS = {
    kind: frozenset(stem(alias) for names in units.values() for alias in names.split() if len(alias) > 2)
    for kind, units in _ALIASES.items()
}
# Digits, or a number word ("thirty seconds" states 30 s).
NUMBER_WORD_PATTERN = "|".join(w for w in NUMBER_WORDS if w not in ("zero", "hundred", "thousand"))
_NUMBER = (
    r"(?<![\w.\[])(\d+(?:[.,]\d+)*|(?<![A-Za-z-])(?:"
    + COMPOUND_NUMBER
    + "|"
    + NUMBER_WORD_PATTERN
    + r")(?![A-Za-z-]))"
)
# A lower-case "m" written onto its number is minutes, as in durations ("5m", "1m to 24h"
# beside "10s"): blind QA round 17 w10, w40 read "5m" as a bare 5, which left "5 hours" for
# it alone. Apart ("5 m") or upper-case ("5M") it may be metres or millions.
WITH_UNIT = re.compile(
    _NUMBER + r"[\s-]?(" + "|".join(sorted(_UNIT, key=len, reverse=True)) + r"|(?<=\d)(?-i:m))\b", re.I
)
_UNIT["m"] = ("time", "min")
# "100 requests per minute", "100 req/s", "5 calls a second"
_RATE = re.compile(
    _NUMBER
    + r"(?:\s+[A-Za-z-]+){0,2}?\s*(?:\s(?:per|an?)\s+|/)(second|sec|minute|min|hour|day|week|month|s|h)\b",
    re.I,
)
_BARE = re.compile(_NUMBER + r"(?![\d\]])")


def number_key(number: str) -> str:
    return figure_key(word_number(number) or number)


def unit_of(match: re.Match[str]) -> tuple[str, str]:
    """(kind, unit) of a figure matched by `_RATE` (a rate per its period) or `WITH_UNIT`."""
    kind, unit = _UNIT[match.group(2).lower()]
    return ("rate", unit) if match.re is _RATE else (kind, unit)


# Each unit in its kind's base unit (seconds, bytes), for ordering figures of one kind.
_SCALE = {
    "ms": 0.001,
    "s": 1,
    "min": 60,
    "h": 3600,
    "d": 86400,
    "wk": 604800,
    "mo": 2_592_000,
    "yr": 31_536_000,
    **{unit: 1024.0**i for i, unit in enumerate(("b", "kb", "mb", "gb", "tb", "pb"))},
}


def magnitudes(text: str) -> list[tuple[str, float]]:
    """The figures of `text` in order, each as (kind, value in the kind's base unit): "5
    minutes" is ("time", 300.0), "2 MiB" ("size", 2097152.0), a bare 3 ("", 3.0), "100 per
    second" ("rate/s", 100.0). Figures that are no plain number (versions) are left out."""
    found: dict[int, tuple[str, float]] = {}
    for m in _RATE.finditer(text):
        found[m.start(1)] = (f"rate/{unit_of(m)[1]}", float(number_key(m.group(1))))
    for m in WITH_UNIT.finditer(text):
        if m.start(1) not in found:
            kind, unit = unit_of(m)
            found[m.start(1)] = (kind, float(number_key(m.group(1))) * _SCALE[unit])
    for m in _BARE.finditer(text):
        if m.start(1) not in found:
            found[m.start(1)] = ("", float(number_key(m.group(1))))
    return [found[start] for start in sorted(found)]


def _stated(text: str) -> dict[str, set[tuple[str, str]]]:
    """Each figure of the text with the (kind, unit) pairs it is stated with; ("", "") for a
    place where it stands without one."""
    out: dict[str, set[tuple[str, str]]] = {}
    placed: set[int] = set()
    for m in _RATE.finditer(text):
        out.setdefault(number_key(m.group(1)), set()).add(unit_of(m))
        placed.add(m.start(1))
    for m in WITH_UNIT.finditer(text):
        if m.start(1) not in placed:
            out.setdefault(number_key(m.group(1)), set()).add(unit_of(m))
            placed.add(m.start(1))
    for m in _BARE.finditer(text):
        if m.start(1) not in placed:
            out.setdefault(number_key(m.group(1)), set()).add(("", ""))
    return out


def same_quantity(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)


def figure_of(text: str) -> str:
    """The figure of a `WITH_UNIT` match's text ("5 minutes" → "5"), as `stated_figures` keys it."""
    match = WITH_UNIT.match(text)
    return number_key(match.group(1)) if match else text


def quantities(text: str) -> list[tuple[re.Match[str], str, str, float]]:
    """Each time or size figure of `text`: (match, kind, unit, value in the kind's base unit);
    a figure that is no plain number ("1.2.3 s") is left out."""
    out = []
    for m in WITH_UNIT.finditer(text):
        kind, unit = unit_of(m)
        try:
            out.append((m, kind, unit, float(number_key(m.group(1))) * _SCALE[unit]))
        except ValueError:
            continue
    return out


def unit_words(text: str) -> frozenset[str]:
    """Every unit word of each kind `text` states a figure of: a page giving "300 s" backs
    "5 minutes" as words (blind QA round 17 r11); whether the quantity is right is the
    figure checks' question."""
    return frozenset().union(*(_UNIT_WORDS[kind] for _, kind, _, _ in quantities(text)))


def converted_figures(answer: str, cited_sources: list[dict[str, Any]]) -> set[str]:
    """Figures of the answer written in another unit than the one the quantity is given in:
    "5 minutes" where a cited source says "300 s", "8 GiB" after the answer's own "8192 MiB"
    (blind QA round 17 r02, r11, r24: three right answers flagged). Returned as written
    ("5 minutes"); a time or size equal to one a source states, or to a figure of the answer
    in another unit, is the same quantity."""
    text = " \n".join(str(s.get("content") or "") for s in cited_sources)
    given = [(kind, value) for _, kind, _, value in quantities(text)]
    found = quantities(answer)
    out: set[str] = set()
    for m, kind, unit, value in found:
        if not value:
            continue  # "0 ms" is "0 s" too, and says nothing about either
        peers = [(k, v) for _, k, u, v in found if u != unit]
        if any(k == kind and same_quantity(v, value) for k, v in given + peers):
            out.add(m.group(0))
    return out


def mismatched_units(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Figures of the answer ("500 seconds") whose cited sources state them only with another
    unit of the same kind ("500 ms"), as the answer wrote them. A figure in a sentence that
    names a setting is held to the sources' lines naming that setting, when they state it:
    "`multiline.timeout` … defaults to 500 seconds" against the row "| `multiline.timeout` |
    500 ms |", the page's `multiline.max_lines` being 500 lines (blind QA round 16 w04)."""
    text = " \n".join(str(s.get("content") or "") for s in cited_sources)
    sources = _stated(text)
    lines = text.splitlines()
    converted = converted_figures(answer, cited_sources)
    out: list[str] = []
    for sentence in ANSWER_SENTENCE.split(answer):
        named = setting_names(sentence)
        rows = _stated(" \n".join(line for line in lines if named & setting_names(line))) if named else {}
        for m in [*_RATE.finditer(sentence), *WITH_UNIT.finditer(sentence)]:
            unit = unit_of(m)
            there = rows.get(number_key(m.group(1))) or sources.get(number_key(m.group(1)), set())
            same_kind = {u for u in there if u[0] == unit[0]}
            if (
                same_kind
                and unit not in there
                and same_kind == there
                and m.group(0) not in out
                and m.group(0) not in converted
            ):
                out.append(m.group(0))
    return out


# A bound before a figure: a ceiling ("up to 64 GB") or a floor ("at least 64 GB").
# "no smaller than" is a floor, "the size limit is" a ceiling (QA round 12 m17).
_CEILING = (
    r"up to|at most|no more than|not more than|a maximum of|maximum of|max(?:imum)?|below|under|less than|"
    r"fewer than|<=?|≤|no[t]? (?:larger|bigger|greater|higher|longer) than|limit(?:ed to| is| of)"
)
_FLOOR = (
    r"at least|no less than|not less than|a minimum of|minimum of|min(?:imum)?|above|over|more than|"
    r"greater than|>=?|≥|no[t]? (?:smaller|lower|shorter|fewer) than"
)
_BOUND = re.compile(rf"(?<![\w-])(?:(?P<ceiling>{_CEILING})|(?P<floor>{_FLOOR}))\s*" + _NUMBER, re.I)


def _bounds(text: str) -> dict[str, set[str]]:
    """Each figure of the text with the bounds it is given: "ceiling", "floor", or "" bare."""
    out: dict[str, set[str]] = {}
    bounded: set[int] = set()
    for m in _BOUND.finditer(text):
        out.setdefault(number_key(m.group(3)), set()).add("ceiling" if m.group("ceiling") else "floor")
        bounded.add(m.start(3))
    for m in _BARE.finditer(text):
        if m.start(1) not in bounded:
            out.setdefault(number_key(m.group(1)), set()).add("")
    return out


def reversed_bounds(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Bounded figures of the answer ("at least 64 GB") whose cited sources give the figure
    only with the opposite bound ("up to 64 GB"), as the answer wrote them."""
    sources = _bounds(" \n".join(str(s.get("content") or "") for s in cited_sources))
    out: list[str] = []
    for m in _BOUND.finditer(answer):
        if m.group(3).count(".") > 1:
            continue  # a version ("< 0.10.0"): a page states both sides of a constraint
        mine = "ceiling" if m.group("ceiling") else "floor"
        there = sources.get(number_key(m.group(3)), set())
        if there and there == {"floor" if mine == "ceiling" else "ceiling"} and m.group(0) not in out:
            out.append(m.group(0))
    return out


# A figure given as a default: "defaults to 30 seconds", "(default 3, maximum 5)", "the default
# visibility timeout is 30 s", "3 replicas by default".
_DEFAULT = re.compile(
    rf"(?<![\w-])(?:defaults?\s+(?:to|is|of)|default(?:\s+[\w`.-]+){{0,3}}?\s+(?:is|of|=)|default:?)\s*{_NUMBER}"
    rf"|{_NUMBER}(?:\s+[\w-]+){{0,2}}\s+by default\b",
    re.I,
)


# What an answer says of a value the user does not give: "If you leave out `--partitions`,
# the queue gets 256 partitions" gives 256 as the default without the word (QA round 13 w31).
_OMITTED = re.compile(
    r"\b(?:if|when)\s+(?:you\s+)?(?:leave\s+(?:\S+\s+){0,3}?out|omit|skip"
    r"|(?:don['’]t|do\s+not|never)\s+(?:set|specify|pass|give|provide|supply|configure|add)"
    r"|(?:it\s+is|it['’]s|\S+\s+is)\s+(?:not\s+(?:set|specified|given)|unset|omitted|left\s+out))\b"
    r"|\bwithout\s+(?:setting|specifying|passing|giving|providing)\b",
    re.I,
)
_NUMBER_RE = re.compile(_NUMBER, re.I)


def _omitted_figures(answer: str) -> list[tuple[str, str]]:
    """(figure as written, key) of the figures a sentence gives after saying the value is left
    out, one sentence at a time; a figure the sentence bounds ("up to 256") is not a default."""
    out: list[tuple[str, str]] = []
    for sentence in re.split(r"(?<=[.!?])\s+", answer):
        if not (m := _OMITTED.search(sentence)):
            continue
        rest = re.sub(r"`[^`]*`", " ", sentence[m.end() :])
        bounded = {number_key(b.group(3)) for b in _BOUND.finditer(rest)}
        out += [
            (f.group(1), number_key(f.group(1)))
            for f in _NUMBER_RE.finditer(rest)
            if number_key(f.group(1)) not in bounded
        ]
    return out


def _after_default(text: str, start: int) -> bool:
    """A bound right after "default" is a default bound ("a default allowance of up to 4")."""
    return bool(re.search(r"\bdefault(?:\s+[A-Za-z-]+){0,3}\s*$", text[max(0, start - 60) : start], re.I))


def _defaults(text: str) -> set[str]:
    found = {number_key(m.group(1) or m.group(2)) for m in _DEFAULT.finditer(text)}
    return found | {number_key(m.group(3)) for m in _BOUND.finditer(text) if _after_default(text, m.start())}


def swapped_defaults(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """A bound given as the default, or the default as a bound: "defaults to 12 hours" where
    the cited sources give 12 hours only as a ceiling ("up to 12 hours", the default being 30
    seconds), or "a limit of 1 MiB" where 1 MiB is only ever the default (QA round 13 w10,
    w14). Figures the sources also state bare, or in both roles, are left alone."""
    text = " \n".join(str(s.get("content") or "") for s in cited_sources)
    defaults = _defaults(text)
    bounds = _bounds(_DEFAULT.sub(" ", text))  # a default's figure is not also read as bare
    # A figure the answer gives both roles ("limited to 32 TB by default") is a default bound.
    both = _defaults(answer) & {number_key(m.group(3)) for m in _BOUND.finditer(answer)}
    out: list[str] = []
    for m in _DEFAULT.finditer(answer):
        key = number_key(m.group(1) or m.group(2))
        there = bounds.get(key, set())
        if key not in defaults | both and there and "" not in there and m.group(0) not in out:
            out.append(m.group(0))
    for written, key in _omitted_figures(answer):
        there = bounds.get(key, set())
        if key not in defaults | both and there and "" not in there and written not in out:
            out.append(written)
    for m in _BOUND.finditer(answer):
        key = number_key(m.group(3))
        if key in both:
            continue
        if key in defaults and not bounds.get(key) and m.group(0) not in out:
            out.append(m.group(0))
    return out
