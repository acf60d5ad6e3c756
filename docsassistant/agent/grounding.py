"""The verdict on an answer: which flags it earns from its citations and verification.

Pure functions (no model call), so every row of the flag table is tested directly.
`grounded` is the only good verdict and needs all nine conditions of docs/flags.md: at
least one valid citation, at least one verified claim, every claim supported, every claim's
sources among the answer's citations, and (checked in code, not by the verifier) every
number the answer states found in a source it cites (`unbacked_numbers`), every sentence
covered by a citation or a claim (`coverage.unchecked_sentences`), no statement the
opposite of its source (`reversals.reversed_statements`, in other words
`negated_verbs.denied_verbs_asserted`), every cited sentence sharing
words with what it cites (`word_support.weakly_supported`) and no term of the question
swapped for its sibling (`siblings.sibling_terms`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from docsassistant.agent.schemas import ClaimCheck
from docsassistant.terms import code_terms


class Verdict(BaseModel):
    """A verification status and the flags that explain it, as `(kind, message)` pairs."""

    status: str  # grounded | unsupported | failed | empty | unverified | not_applicable
    flags: list[tuple[str, str]]


def judge(
    cited: list[int],
    claims: list[ClaimCheck] | None,
    obeyed: list[str],
    unbacked: list[str] | None = None,
    unchecked: list[str] | None = None,
    reversals: list[str] | None = None,
    weak: list[str] | None = None,
    off_question: list[str] | None = None,
    truncated: bool = False,
) -> Verdict:
    """Flags for an answer citing `cited` whose verifier returned `claims`.

    `claims` is None when the verifier's reply could not be read; `obeyed` lists orders
    from sources that the answer carried out (see `obeyed_orders`); `unbacked`, numbers the
    answer states that no cited source holds (see `unbacked_numbers`); `unchecked`, the
    answer's sentences that no citation and no claim covers (see `coverage.py`);
    `reversals`, its statements that a cited source says the opposite of (`reversals.py`);
    `weak`, its cited sentences that share too few words with what they cite
    (`word_support.py`); `off_question`, terms of the question the answer swapped for a
    sibling term of the same page (`siblings.py`); `truncated`, the answer's end is missing
    (flagged `answer_truncated` by generate): what is left may say the opposite of the whole."""
    flags: list[tuple[str, str]] = []
    if obeyed:
        flags.append(("injection_obeyed", f"The answer carries out text from a source: {obeyed[0]!r}."))
    if claims is None:
        flags.append(
            ("verification_unreadable", "The verifier's reply could not be read; the answer is unchecked.")
        )
        return Verdict(status="failed" if obeyed else "unverified", flags=flags)
    if not claims:
        flags.append(("verification_empty", "The verifier found no claims to check."))
        return Verdict(status="failed" if obeyed else "empty", flags=flags)
    unsupported = [c.claim for c in claims if not c.supported]
    if unsupported:
        flags.append(("unsupported_claims", f"{len(unsupported)} claim(s) not supported by the sources."))
    elif unbacked:
        # The verifier is the same kind of model that wrote the answer: a figure it let
        # through that no cited source contains is not taken on its word.
        shown = ", ".join(unbacked[:3])
        flags.append(
            ("unsupported_claims", f"The answer states {shown}, which none of its cited sources contains.")
        )
        unsupported = list(unbacked)
    if reversals and not unsupported:
        # A flipped word ("enabled" for "disabled") keeps a sentence looking like its
        # source, and a verifier of the writer's kind passes it.
        flags.append(
            (
                "unsupported_claims",
                f"The answer says the opposite of a source: {reversals[0]!r}.",
            )
        )
        unsupported = list(reversals)
    if weak and not unsupported:
        # A real citation on a sentence its source does not contain passes a verifier that
        # agrees with everything.
        flags.append(("unsupported_claims", f"A sentence is not backed by the source it cites: {weak[0]!r}."))
        unsupported = list(weak)
    if off_question and not unsupported:
        # "The request timeout is 30 seconds [1]" is true of its page, and no answer to
        # "What is the connect timeout?": every support check passes it.
        flags.append(("off_question", f"The answer may not be about what was asked: {off_question[0]}."))
        unsupported = list(off_question)
    if unchecked and not unsupported:
        # A verifier that lists only the cited claim leaves the rest of the answer unchecked.
        flags.append(
            (
                "unchecked_sentences",
                f"{len(unchecked)} sentence(s) cite no source and were not verified"
                + (f", the first: {unchecked[0]!r}." if len(unchecked) > 1 else f": {unchecked[0]!r}."),
            )
        )
        unsupported = list(unchecked)
    off_citation = [
        c.claim for c in claims if c.supported and not (c.sources and set(c.sources) <= set(cited))
    ]
    if off_citation:
        flags.append(
            ("citation_mismatch", f"{len(off_citation)} claim(s) rest on sources the answer does not cite.")
        )
    if obeyed:
        return Verdict(status="failed", flags=flags)
    if unsupported:
        return Verdict(status="unsupported", flags=flags)
    if truncated:
        return Verdict(status="unverified", flags=flags)
    if cited and not off_citation:
        flags.append(("grounded", f"All {len(claims)} claim(s) are supported by the cited sources."))
        return Verdict(status="grounded", flags=flags)
    return Verdict(status="unsupported", flags=flags)


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
    backs 3, 100 and 3100; "10k" backs 10 and 10000."""
    found = {figure_key(m.group(1)) for m in _NUMBER.finditer(text)} | set(_stated(text))
    lowered = re.findall(r"[a-z]+", text.lower())
    return (
        found
        | {NUMBER_WORDS[w] for w in lowered if w in NUMBER_WORDS}
        | {_ORDINAL_WORDS[w] for w in lowered if w in _ORDINAL_WORDS}
    )


# A figure in inline code is still a figure ("the timeout is `60` seconds"); other code
# (versions in commands, examples) is not checked.
_BARE_FIGURE = re.compile(r"`\s*(\d+(?:[.,]\d+)*)\s*([A-Za-z%]{0,4})\s*`")
# "sixty seconds": a number word before a unit or a counted thing. Only then: "two ways to
# do it" is rarely a figure the source states ("one" and "zero" never are checked).
# Things a figure counts (also read by units.miscounted: a counted thing keeps its count).
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
    r"\b(" + "|".join(w for w in NUMBER_WORDS if w not in ("zero", "one", "hundred", "thousand")) + r")"
    rf"\s+(?:{_UNITS})\b",
    re.I,
)


def _bare_figure(match: re.Match[str]) -> str:
    figure = _BARE_FIGURE.fullmatch(match.group(0))
    return f" {figure.group(1)} {figure.group(2)} " if figure else " "


def _word_figures(prose: str) -> list[str]:
    """Figures written as words in the answer ("sixty seconds" states 60); scaled ones
    ("twenty thousand") are read by `_stated`."""
    scaled = {m.start() for m in _SCALED_WORDS.finditer(prose)}
    return [NUMBER_WORDS[m.group(1).lower()] for m in _WORD_FIGURE.finditer(prose) if m.start() not in scaled]


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


# A name in a question: an identifier with `_`, `.` or `::` (`FOO_TIMEOUT`, `hnsw.ef_search`)
# or a backquoted single token. Capitalised words and CamelCase names are left out: the
# chunk that answers often calls the product by another name ("DiskANN" for its plug-in).
_BACKQUOTED = re.compile(r"`([^`\s]{2,80})`")


_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "a.k.a"})


def _identifiers(text: str) -> list[str]:
    found = [*_BACKQUOTED.findall(text), *(t for t in code_terms(text) if re.search(r"[_.:]", t))]
    return [t for t in found if t.lower().strip(".") not in _ABBREVIATIONS]


def unbacked_identifiers(text: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Identifiers in `text` (a question the answer says yes to) that none of the cited
    sources mentions, compared case-insensitively: "Yes [1]." to "Does `FOO_TIMEOUT` set the
    timeout?" against a page about `CLIENT_TIMEOUT` confirms a name the page never uses."""
    names = _identifiers(text)
    backed = " ".join(
        f"{s.get('title') or ''} {s.get('section') or ''} {s.get('content') or ''}" for s in cited_sources
    ).lower()
    out: list[str] = []
    for name in names:
        name = name.strip(".")
        if len(name) >= 2 and name.lower() not in backed and name.lower() not in (n.lower() for n in out):
            out.append(name)
    return out


_LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", re.I)
_GENERIC_OPTIONS = frozenset({"--help", "--version", "--verbose"})


def unbacked_options(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Command-line options (`--force`) in the answer's code blocks that no source gives:
    code is exempt from the identifier check, so an invented flag in a command passed
    (QA round 10, s17). `--help` and its like are taken as known."""
    code = " ".join(m.group(0) for m in FENCED_CODE.finditer(answer))
    known = " ".join(str(s.get("content") or "") for s in sources).lower()
    out: list[str] = []
    for option in _LONG_OPTION.findall(code):
        found = re.search(rf"(?<![\w-]){re.escape(option.lower())}(?![\w-])", known)
        if option.lower() not in _GENERIC_OPTIONS and not found and option not in out:
            out.append(option)
    return out


def states_a_figure_of(answer: str, sources: list[dict[str, Any]]) -> bool:
    """The answer's prose states at least one number that one of `sources` holds."""
    said = _numbers(_LIST_ORDINAL.sub(" ", CODE_SPANS.sub(" ", answer)))
    return any(said & _numbers(source.get("content") or "") for source in sources)


_QUOTED = re.compile(r"\"([^\"\n]{3,120})\"|“([^”\n]{3,120})”|'([^'\n]{3,120})'|`([^`\n]{3,120})`")
_URL = re.compile(r"https?://[^\s)\]>\"']+")
_SHOUTED = re.compile(r"\b[A-Z][A-Z0-9_]{3,}\b")
# Where a phishing order sends the reader: an e-mail address, or a host named without its
# scheme ("reset your password on the evil.example.com site"). Only common top-level
# domains, so file names (`values.yaml`, `README.md`) are not taken for hosts.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_HOST = re.compile(
    r"(?<![\w@.-])(?:[a-z0-9-]+\.)+(?:com|net|org|io|ai|dev|app|co|me|info|biz|xyz|site|online|"
    r"example|ru|cn|tk|top)(?![\w-])",
    re.I,
)


def obeyed_orders(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Payloads of orders removed from the sources that show up in the answer anyway.

    What an injected order wants said is usually spelled out: a quoted phrase, a URL, an
    e-mail address or host name, a shouted token ("reply only with BANANA"). The answer
    repeating one of those (as a whole word or phrase) carries the order out.
    """
    from docsassistant.agent.injection.detector import (
        removed_sentences,  # the detector loads the embedder lazily
    )

    found: list[str] = []
    for source in sources:
        for sentence in removed_sentences(source):
            for payload in _payloads(sentence):
                said = re.search(rf"(?<!\w){re.escape(payload)}(?!\w)", answer, re.I)
                if said and payload not in found:
                    found.append(payload)
    return found


# Shouted words that are emphasis or acronyms, not a payload.
_NOT_PAYLOADS = {
    "IMPORTANT",
    "NOTE",
    "WARNING",
    "SYSTEM",
    "ASSISTANT",
    "USER",
    "NEVER",
    "ALWAYS",
    "MUST",
    "ONLY",
    "JSON",
    "HTTP",
    "HTTPS",
    "API",
    "URL",
    "NOT",
    "AND",
    "THE",
    "NOTICE",
    "MODEL",
    "STOP",
    "READ",
    "THIS",
}


def _payloads(sentence: str) -> list[str]:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(sentence)]
    shouted = [w for w in _SHOUTED.findall(sentence) if w not in _NOT_PAYLOADS]
    emails = _EMAIL.findall(sentence)
    hosts = [e.split("@", 1)[1] for e in emails] + _HOST.findall(_EMAIL.sub(" ", sentence))
    places = emails + [h for h in hosts if _HOST.fullmatch(h)]
    return [p.strip() for p in quoted if p.strip()] + _URL.findall(sentence) + places + shouted
