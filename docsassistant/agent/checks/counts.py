"""A count of a thing that its source counts otherwise: "a single check" for the page's
"three checks in a row" (QA round 11 s55). Part of condition 5 of `grounded` (docs/flags.md):
the figure alone may be on the page ("1 node"), so the check of figures passes it. Measured
by eval/count_checks.py. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.figures import COUNTED_THINGS
from docsassistant.agent.checks.units import NUMBER_WORD_PATTERN, number_key

# A count before a counted thing, with up to two words between ("three consecutive failed
# checks"); a count above one needs the plural ("two tool sources" counts sources). "A single
# check" counts 1, "a check" nothing, and a sentence's opening "One option is …" names one
# of several.
_ONE = r"a single|one single|only one|just one|exactly one|1"
_BETWEEN_STOP = frozenset("of the a an and or to in on for per by with from at each every its their".split())  # noqa: SIM905
_COUNTED = re.compile(
    rf"(?<![\w.,\[$-])(?:(?P<one>{_ONE})|(?P<n>\d{{1,3}}(?:,\d{{3}})+|\d+|{NUMBER_WORD_PATTERN}))(?![\d.,]\d)"
    rf"(?P<between>(?:[\s-]+[a-z][a-z-]*){{0,2}}?)\s+(?P<noun>{COUNTED_THINGS})(?![\w-])",
    re.I,
)
# "twice" is two times: a page's "retries once" answered "twice" (QA round 12 m42).
# Not the "once" of "Once you have built it", "at once" or "once again".
_TIMES = re.compile(
    r"(?<![\w-])(?<!at )(?:(once)(?!\s+(?:again|more|you|we|they|it|the|a|an|this|that|your|all|its|[A-Z]))|"
    r"(twice|thrice))(?![\w-])"
)
_TIMES_COUNT = {"once": "1", "twice": "2", "thrice": "3"}
# Two sentences count the same thing when they share this many content words besides it.
MIN_SHARED_FOR_COUNT = 2  # chosen on dev (eval/count_checks.py): 1 misread 6 of 120, 3 caught 133 of 205


def _singular(noun: str) -> str:
    noun = noun.lower()
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith("xes"):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


def _counts(text: str, *, plain_one: bool) -> list[tuple[str, str, str]]:
    """(count, counted thing, phrase as written) for each counted thing of the text; with
    `plain_one`, a capitalised "One check" counts 1 too (a source's word, never doubted)."""
    out = []
    for m in _COUNTED.finditer(text):
        if any(w.lower() in _BETWEEN_STOP for w in re.findall(r"[A-Za-z-]+", m.group("between"))):
            continue  # "2 of the 3 options" counts options once, as 3
        if m.group("one"):
            count = "1"
        elif m.group("n") == "One" and not plain_one:
            continue  # "One option is …", sentence-initial
        else:
            count = number_key(m.group("n"))
        noun = _singular(m.group("noun"))
        if (count == "1") == (noun != m.group("noun").lower()):
            continue  # "two tool sources", "1 replicas": not this noun's count
        out.append((count, noun, m.group(0)))
    out += [(_TIMES_COUNT[m.group(0)], "time", m.group(0)) for m in _TIMES.finditer(text)]
    return out


def miscounted(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Counted things of the answer ("a single check", "5 replicas") that a cited source
    counts otherwise in a sentence about the same thing ("marked down after three failed
    health checks"), while no cited source gives the answer's count, as written. The figure
    alone may be on the page ("1 node"), so condition 5 passes it (QA round 11 s55)."""
    from docsassistant.agent.checks.reversals import CLAUSE_SPLIT
    from docsassistant.agent.checks.words import content_stems, sentences

    places: dict[str, list[tuple[str, set[str]]]] = {}
    for sentence in sentences(" \n".join(str(s.get("content") or "") for s in cited_sources)):
        for count, noun, phrase in _counts(sentence, plain_one=True):
            places.setdefault(noun, []).append((count, content_stems(sentence) - content_stems(phrase)))
    out: list[str] = []
    # Clause by clause: "Spring AI assumes 1536 dimensions; Milvus accepts up to 32,768" joins
    # two things that each count dimensions.
    for clause in (c for sentence in sentences(answer) for c in CLAUSE_SPLIT.split(sentence)):
        mine = content_stems(clause)
        for count, noun, phrase in _counts(clause, plain_one=False):
            there = places.get(noun, [])
            if any(c == count for c, _ in there) or phrase in out:
                continue
            if any(len((mine - content_stems(phrase)) & stems) >= MIN_SHARED_FOR_COUNT for _, stems in there):
                out.append(phrase)
    return out
