"""Condition 8 of `grounded`: a cited sentence must share words with the source it cites.

A verifier of the writer's kind passes "Compression is turned off unless you change the
setting [2]" when [2] is the rate-limit page (QA round 9, s03), and an invented sentence
given a real citation ("The gateway writes logs in JSON format [1]", s37). Checked in code:
the share of a cited sentence's content words (stemmed, figures aside) that appear in the
text of the sources it cites, as the generator saw them (an injected sentence removed from
a source backs nothing: s22b). Below `MIN_SUPPORT` the sentence is taken as unsupported.

`MIN_SUPPORT` was chosen on the dev split of the docs QA sets (58 gold answers against the
chunks holding their evidence, and against another question's chunks): no gold answer
falls below any threshold from 0.2 to 0.4; 0.3 is the lowest that catches 90 % of the
wrong chunks (54 of 58), kept low because a model's answer restates its source in more of
its own words than a gold answer does (a correct paraphrase of the compression page scored
0.43). On the test split (40): no gold answer below, 34 of 40 wrong chunks caught.

`misplaced_figures` holds each cited sentence's figures to its own citations: a figure
that only another cited source holds was moved there. (QA round 9's s43, a subject moved
to the other page with its figure cited right, "the timeout is 1000 requests per minute
[rate-limit page]", still passes both checks.)
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.grounding import CODE_SPANS, unbacked_numbers
from docsassistant.agent.reversals import content_stems

MIN_SUPPORT = 0.3
MIN_WORDS = 3  # shorter sentences ("Yes [1].") say too little to judge
_MARKERS = re.compile(r"\[(\d+)\]")
# A marker written after the full stop ("… seconds. [1] The …") belongs to the sentence before it.
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?!\[\d)|(?<=\])\s+(?=[A-Z])|\n+")


def weakly_supported(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """The answer's cited prose sentences that share too few words with what they cite.

    `sources` are the numbered evidence items (`n`, `content`, and `prompt_text` when the
    generator saw a redacted version)."""
    texts = {
        s.get("n"): " ".join(str(s.get(k) or "") for k in ("title", "section")) + " " + _seen(s)
        for s in sources
    }
    out: list[str] = []
    for sentence in _SENTENCE.split(CODE_SPANS.sub(" ", answer)):
        cited = [int(n) for n in _MARKERS.findall(sentence) if int(n) in texts]
        if not cited or sentence.lstrip().startswith("#"):
            continue
        words = content_stems(_MARKERS.sub(" ", sentence))
        if len(words) < MIN_WORDS:
            continue
        backed = set().union(*(content_stems(texts[n]) for n in cited))
        if len(words & backed) / len(words) < MIN_SUPPORT:
            out.append(re.sub(r"\s+(?=[.,;:!?])", "", _MARKERS.sub("", sentence)).strip())
    return out


def misplaced_figures(answer: str, sources: list[dict[str, Any]], question: str = "") -> list[str]:
    """Cited sentences stating a figure that their own citations lack but another source
    holds: two figures swapped between two cited sources ("the timeout is 1000 requests
    per minute [1]", [1] being the timeouts page and the 1000 the rate limit of [2]) pass a
    check of the whole answer against all its citations."""
    by_n = {s.get("n"): s for s in sources}
    out: list[str] = []
    for sentence in _SENTENCE.split(answer):
        cited = [by_n[int(n)] for n in _MARKERS.findall(sentence) if int(n) in by_n]
        if not cited:
            continue
        others = [s for s in sources if s not in cited]
        missing = unbacked_numbers(sentence, cited, question)
        elsewhere = [f for f in missing if not unbacked_numbers(f, others, question)]
        if elsewhere:
            out.append(re.sub(r"\s+(?=[.,;:!?])", "", _MARKERS.sub("", sentence)).strip())
    return out


def _seen(source: dict[str, Any]) -> str:
    return str(source.get("prompt_text") or source.get("content") or "")
