"""A figure its source gives the asked component's peer: the server's port for the worker's.

"On which port does the worker expose its Prometheus metrics?" answered "The worker exposes
metrics at `http://HOST:7401/metrics` [1]", [1] saying "The server exposes Prometheus metrics
at `http://HOST:7401/metrics` by default. The worker's metrics endpoint is disabled by
default" (blind QA round 15 w09); "And which PostgreSQL version does it need?" after a turn
about the worker, answered "PostgreSQL 14 or later [1]" from the page's "**Server**:
PostgreSQL 14 or later" line beside its "**Worker**: …" line (w26). Every figure is on the
cited page, so the figure checks pass; the sibling checks read two-word terms and two-word
names, and these components are one word each.

Pages give parts of a product parallel places: bold labels of a list ("**Server**:"), the
first cells of a table's rows ("| Worker |"), the subjects of sentences ("The server …",
"The worker's …"). Two words in the same kind of place on one page are peers. A figure of
the answer is the peer's when every cited sentence stating it sits under (or opens with) a
peer of a word of the question, none of them names that word, and the answer's clause does
not name the peer itself. Pure functions, no model call; measured by
eval/peer_figure_checks.py.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE
from docsassistant.agent.checks.figures import FENCED_CODE, figure_key
from docsassistant.agent.checks.sibling_terms import CLAUSE_BREAK
from docsassistant.agent.checks.words import FILLER, content_stems, stem
from docsassistant.agent.citations import MARKER

# A number anywhere but in a name: prose, inline code and URLs alike ("HOST:7401/metrics").
_FIGURE = re.compile(r"(?<![\w.-])\d+(?:[.,]\d+)*(?![\w-])")


def all_figures(text: str) -> set[str]:
    return {figure_key(m.group(0)) for m in _FIGURE.finditer(MARKER.sub(" ", text))}


# The places a part of a product is named in (the word, lower-cased, is group 1).
_PLACES = {
    "label": re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\*\*([A-Za-z][\w-]*)\*\*\s*[:—–-]"),
    "row": re.compile(r"^\s*\|\s*(?:\*\*|`)?([A-Za-z][\w-]*)(?:\*\*|`)?\s*\|"),
    "subject": re.compile(r"^\W*(?:the|each|every)\s+([A-Za-z][\w-]*?)(?:['’]s)?\s", re.I),
}


_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
# Sentence subjects that name a value or a position, not a part: "The default is 30 seconds"
# beside "The timeout …" is the timeout's default.
_NOT_PARTS = FILLER | frozenset(
    "default maximum minimum max min value limit number size result output following previous "  # noqa: SIM905
    "next first last same new other only latest current".split()
)


def placed_sentences(content: str) -> list[tuple[str, str, str, str]]:
    """(sentence, kind of place, its word stemmed, as written) for each sentence of
    `content`; a line's label or row covers its sentences that have no subject of their own."""
    out: list[tuple[str, str, str, str]] = []
    lines = FENCED_CODE.sub(" ", content).splitlines()
    for i, line in enumerate(lines):
        held = next(
            ((k, m.group(1)) for k, p in _PLACES.items() if k != "subject" and (m := p.match(line))), None
        )
        if i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            held = None  # a table's header row names no part
        for sentence in SOURCE_SENTENCE.split(line):
            own = _PLACES["subject"].match(sentence)
            place = ("subject", own.group(1)) if own and own.group(1).lower() not in _NOT_PARTS else held
            kind, written = place or ("", "")
            out.append((sentence, kind, stem(written.lower()) if written else "", written.lower()))
    return out


def peer_figures(answer: str, question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """[a note] for each figure the cited sources state only for a peer of a part the
    question names (see the module's docstring); [] otherwise."""
    asked = content_stems(question)
    pages = [placed_sentences(str(s.get("content") or "")) for s in cited_sources]
    out: list[str] = []
    for clause in CLAUSE_BREAK.split(FENCED_CODE.sub(" ", answer)):
        said = content_stems(clause)
        for figure in sorted(all_figures(clause)):
            backing = [(place, page) for page in pages for place in page if figure in all_figures(place[0])]
            owners: set[tuple[str, str]] = set()
            for (sentence, kind, word, written), page in backing:
                # The peers: the same kind of place on the same page holding a word of the question.
                peers = {(w, wr) for _, k, w, wr in page if k == kind and w in asked and w != word}
                named = content_stems(sentence)
                if (
                    not kind
                    or word in asked
                    or word in said
                    or not peers
                    or any(w in named for w, _ in peers)
                ):
                    break
                owners.add((written, min(peers)[1]))
            else:
                if owners:
                    owner, peer = min(owners)
                    out.append(
                        f"{figure} is what the source gives the {owner}; the question is about the {peer}"
                    )
                    break
    return out
