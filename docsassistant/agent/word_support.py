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

from docsassistant.agent.coverage import prose_paragraphs
from docsassistant.agent.grounding import unbacked_numbers
from docsassistant.agent.reversals import content_stems

MIN_SUPPORT = 0.3
MIN_WORDS = 3  # shorter sentences ("Yes [1].") say too little to judge
_MARKERS = re.compile(r"\[(\d+)\]")


def weakly_supported(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """The answer's cited prose sentences that share too few words with what they cite.

    `sources` are the numbered evidence items (`n`, `content`, and `prompt_text` when the
    generator saw a redacted version)."""
    stems = {
        s.get("n"): content_stems(f"{s.get('title') or ''} {s.get('section') or ''} {_seen(s)}")
        for s in sources
    }
    out: list[str] = []
    for sentence, cited in _cited_sentences(answer, stems):
        words = content_stems(_MARKERS.sub(" ", sentence))
        if len(words) < MIN_WORDS:
            continue
        backed = set().union(*(stems[n] for n in cited))
        if len(words & backed) / len(words) < MIN_SUPPORT:
            out.append(_quoted(sentence))
    return out


def misplaced_figures(answer: str, sources: list[dict[str, Any]], question: str = "") -> list[str]:
    """Cited sentences stating a figure that their own citations lack but another of the
    answer's sources holds: two figures swapped between two cited sources ("the timeout is
    1000 requests per minute [1]", [1] being the timeouts page and the 1000 the rate limit
    of [2]) pass a check of the whole answer against all its citations."""
    by_n = {s.get("n"): s for s in sources}
    out: list[str] = []
    for sentence, cited in _cited_sentences(answer, by_n):
        own = [by_n[n] for n in cited]
        others = [s for s in sources if s.get("n") not in cited]
        missing = unbacked_numbers(sentence, own, question)
        if any(not unbacked_numbers(figure, others, question) for figure in missing):
            out.append(_quoted(sentence))
    return out


def _cited_sentences(answer: str, known: dict[Any, Any]) -> list[tuple[str, list[int]]]:
    """(sentence, the source numbers it cites) for each prose sentence citing a known source."""
    out = []
    for paragraph in prose_paragraphs(answer):
        for sentence in paragraph:
            cited = [int(n) for n in _MARKERS.findall(sentence) if int(n) in known]
            if cited:
                out.append((sentence, cited))
    return out


def _quoted(sentence: str) -> str:
    """The sentence as the flag quotes it: without its markers."""
    return re.sub(r"\s+(?=[.,;:!?])", "", _MARKERS.sub("", sentence)).strip()


def _seen(source: dict[str, Any]) -> str:
    return str(source.get("prompt_text") or source.get("content") or "")
