"""The figures an answer states and whether its cited sources hold them: condition 5 of
`grounded` (docs/flags.md).

A figure is read every way it could be written: "10,000", "10 000", "10k" and "ten
thousand" are one; a number word counts before a unit or a counted thing ("sixty seconds").
Code, citation markers and list numbering are not figures. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

# A number as written in prose: 3, 1.0, 10,000, 5GB's 5; not part of a word or identifier
# (v2, SHA256, ef_search=200 keeps its 200), not a citation marker.
_NUMBER = re.compile(r"(?<![\w.\[])(\d+(?:[.,]\d+)*)(?![\d\]])")
# The same with thousands grouped by a space, as SI style writes them: "10 000" (also a
# no-break or thin space).
_GROUPED = re.compile(r"(?<![\w.\[])(\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\d\]])")
CODE_SPANS = re.compile(r"```.*?```|`[^`\n]*`", re.S)
FENCED_CODE = re.compile(r"```.*?(?:```|$)", re.S)
_LIST_ORDINAL = re.compile(r"^\s*\d+[.)]\s", re.M)
NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "hundred": "100", "thousand": "1000"}
NUMBER_WORDS |= {"seventy": "70", "eighty": "80", "ninety": "90"}
# "forty-five" is 45, not a 40 and a 5 (blind QA round 19 r09, r36: "forty-five seconds" and
# "twenty-four hours" were read as 5 and 4, which no source held).
COMPOUND_NUMBER = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[-\s](?:one|two|three|four|five|six|seven|eight|nine)"
_COMPOUND = re.compile(r"\b" + COMPOUND_NUMBER + r"\b", re.I)
# Any number word, a compound one whole: what `word_number` reads.
NUMBER_WORD = re.compile(rf"\b(?:{COMPOUND_NUMBER}|{'|'.join(NUMBER_WORDS)})\b", re.I)


def word_number(text: str) -> str | None:
    """The value of a number word or a compound one ("forty-five" → "45"), else None."""
    words = re.split(r"[-\s]+", text.strip().lower())
    if len(words) == 2 and all(w in NUMBER_WORDS for w in words):
        return str(int(NUMBER_WORDS[words[0]]) + int(NUMBER_WORDS[words[1]]))
    return NUMBER_WORDS.get(words[0]) if len(words) == 1 else None


# A source's "second step" backs an answer's "2nd step".
_ORDINAL_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(),  # noqa: SIM905
        start=1,
    )
}
# "10k", "10 thousand" and "10,000" are one figure; so are "2 million" and "2,000,000".
_SCALED = re.compile(r"(?<![\w.\[])(\d+(?:\.\d+)?)\s?(k|K|hundred|thousand|million)\b")
_SCALE = {"k": 1_000, "K": 1_000, "hundred": 100, "thousand": 1_000, "million": 1_000_000}
_SCALED_WORDS = re.compile(
    r"\b(" + "|".join(w for w in NUMBER_WORDS if w not in ("zero", "hundred", "thousand")) + r")"
    r"\s+(hundred|thousand|million)\b",
    re.I,
)


def figure_key(number: str) -> str:
    """One spelling per value: no thousands separators, no trailing decimal zeros."""
    number = re.sub(r"[,\s\u00a0\u2009\u202f]", "", number)
    return number.rstrip("0").rstrip(".") if "." in number else number


def _scaled(text: str) -> dict[int, str]:
    """Figures written with a scale ("10k", "1.5 million", "twenty thousand"), by position."""
    out = {}
    for m in _SCALED.finditer(text):
        out[m.start(1)] = figure_key(f"{float(m.group(1)) * _SCALE[m.group(2)]:f}")
    for m in _SCALED_WORDS.finditer(text):
        out[m.start()] = figure_key(
            f"{float(NUMBER_WORDS[m.group(1).lower()]) * _SCALE[m.group(2).lower()]:f}"
        )
    return out


def _stated(prose: str) -> list[str]:
    """The figures of a text in order: grouped thousands as one, a scale applied."""
    scaled = _scaled(prose)
    grouped = {m.start(1): m for m in _GROUPED.finditer(prose)}
    out: list[tuple[int, str]] = [(start, value) for start, value in scaled.items() if start not in grouped]
    covered: list[range] = [range(m.start(1), m.end(1)) for m in grouped.values()]
    out += [(start, scaled.get(start) or figure_key(m.group(1))) for start, m in grouped.items()]
    for m in _NUMBER.finditer(prose):
        if m.start(1) not in scaled and not any(m.start(1) in span for span in covered):
            out.append((m.start(1), figure_key(m.group(1))))
    return [value for _, value in sorted(out)]


def _numbers(text: str) -> set[str]:
    """Every figure a source could be backing, read every way it could be meant: "3 100"
    backs 3, 100 and 3100; "10k" backs 10 and 10000; "3.0.0" backs 3.0."""
    found = set(_stated(text))
    for m in _NUMBER.finditer(text):
        found.add(figure_key(m.group(1)))
        if m.group(1).count(".") > 1:  # a release "3.0.0" backs "3.0", whose key drops its ".0" (QA 15 r17)
            found.add(figure_key(re.sub(r"(?:\.0)+$", "", m.group(1))))
    lowered = re.findall(r"[a-z]+", text.lower())
    return (
        found
        | {word_number(m.group(0)) or "" for m in _COMPOUND.finditer(text)} - {""}
        | {NUMBER_WORDS[w] for w in lowered if w in NUMBER_WORDS}
        | {_ORDINAL_WORDS[w] for w in lowered if w in _ORDINAL_WORDS}
    )


source_figures = _numbers  # every figure a source's text could be backing


# A figure in inline code is still a figure ("the timeout is `60` seconds"); other code
# (versions in commands, examples) is not checked.
_BARE_FIGURE = re.compile(r"`\s*(\d+(?:[.,]\d+)*)\s*([A-Za-z%]{0,4})\s*`")
# "sixty seconds": a number word before a unit or a counted thing. Only then: "two ways to
# do it" is rarely a figure the source states ("one" and "zero" never are checked).
# Things a figure counts (also read by counts.miscounted: a counted thing keeps its count).
COUNTED_THINGS = (
    "times|retries|attempts|"
    "connections?|requests?|characters?|tokens?|dimensions?|threads?|workers?|"
    "replicas?|nodes?|shards?|partitions?|chunks?|documents?|files?|results?|rows?|columns?|lists?|bits?|"
    # counted things a page enumerates ("all eight conditions", QA round 10 s33)
    "conditions?|steps?|stages?|phases?|levels?|rules?|checks?|options?|parameters?|arguments?|fields?|"
    "modes?|flags?|tools?|components?|databases?|collections?|tables?|indexes|versions?|releases?"
)
_UNITS = (
    "seconds?|minutes?|hours?|days?|weeks?|months?|years?|ms|milliseconds?|percent|[kmgt]b|bytes?|"
    + COUNTED_THINGS
)
_WORD_FIGURE = re.compile(
    r"\b("
    + COMPOUND_NUMBER
    + "|"
    + "|".join(w for w in NUMBER_WORDS if w not in ("zero", "one", "hundred", "thousand"))
    + rf")\s+(?:{_UNITS})\b"
    # "one hour", "one MiB": a time or size is a figure even at one (blind QA round 19 r17:
    # "from ten seconds to one hour" restates a row's "10 s – 1 h"); "one file" rarely is.
    + r"|\b(one)\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|milliseconds?|[kmgt]i?b|bytes?)\b",
    re.I,
)


def _bare_figure(match: re.Match[str]) -> str:
    figure = _BARE_FIGURE.fullmatch(match.group(0))
    return f" {figure.group(1)} {figure.group(2)} " if figure else " "


def _word_figures(prose: str) -> list[str]:
    """Figures written as words in the answer ("sixty seconds" states 60); scaled ones
    ("twenty thousand") are read by `_stated`."""
    scaled = {m.start() for m in _SCALED_WORDS.finditer(prose)}
    return [
        word_number(m.group(1) or m.group(2)) or ""
        for m in _WORD_FIGURE.finditer(prose)
        if m.start() not in scaled and not re.search(r"[A-Za-z]-$", prose[: m.start()])
    ]


def stated_figures(answer: str) -> list[str]:
    """The figures an answer's prose states, in order: code (but a bare figure in inline
    code), citation markers and list numbering left out; "sixty seconds" states 60."""
    prose = _LIST_ORDINAL.sub(" ", CODE_SPANS.sub(_bare_figure, answer))
    stated = _stated(prose)
    return stated + [n for n in _word_figures(prose) if n not in stated]


def unbacked_numbers(answer: str, cited_sources: list[dict[str, Any]], question: str = "") -> list[str]:
    """Numbers in the answer's prose that appear in none of its cited sources (nor in the
    question): "5 GB [1]" citing a page about connection limits. Code, citation markers and
    list numbering are left out; a source's number and ordinal words count ("thirty seconds"
    backs 30, "the second step" backs "2nd"), and so does a scale ("10k" is 10,000). Numbers
    are returned without thousands separators."""
    backed = _numbers(question)
    for source in cited_sources:
        backed |= _numbers(
            f"{source.get('title') or ''} {source.get('section') or ''} {source.get('content') or ''}"
        )
    out: list[str] = []
    for number in stated_figures(answer):
        if number not in backed and number not in out:
            out.append(number)
    return out


def states_a_figure_of(answer: str, sources: list[dict[str, Any]]) -> bool:
    """The answer's prose states at least one number that one of `sources` holds."""
    said = _numbers(_LIST_ORDINAL.sub(" ", CODE_SPANS.sub(" ", answer)))
    return any(said & _numbers(source.get("content") or "") for source in sources)
