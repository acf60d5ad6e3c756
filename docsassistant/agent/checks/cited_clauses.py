"""Which sources each sentence and clause of an answer cites, and the source text it is held to.

The segmentation the citation-bound checks share (`word_support`, `figure_binding`,
`rival_statements`, `sibling_names`, `absence`): a cited sentence, cut after each run of
markers into clauses, against its sources as the generator saw them (`prompt_text` when a
source was redacted).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from docsassistant.agent.checks.coverage import prose_paragraphs, says_nothing
from docsassistant.agent.checks.figures import stated_figures
from docsassistant.agent.checks.words import content_stems

CITATION_MARKER = re.compile(r"\[(\d+)\]")
_MARKER_RUN = re.compile(r"(?:\s*\[\d+\])+")
SOURCE_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# The cells of a Markdown table line, between its outer pipes.
TABLE_CELLS = re.compile(r"^\s*\|(.*)\|\s*$")
_SEPARATOR = re.compile(r"^[\s|:-]+$")


def table_body_rows(text: str) -> Iterator[tuple[list[str], list[str]]]:
    """(header, cells) for each body row of `text`'s Markdown tables, cells stripped. Rows of
    one table share one header list; separator lines are skipped, and a table ends at the
    first line that is not a table line."""
    header: list[str] | None = None
    for line in text.splitlines():
        m = TABLE_CELLS.match(line)
        if not m:
            header = None
        elif not _SEPARATOR.match(m.group(1)):
            cells = [c.strip() for c in m.group(1).split("|")]
            if header is None:
                header = cells
            else:
                yield header, cells


# Where the clauses of a contrast meet: "supported on macOS, although the relay is not".
CONTRAST = re.compile(r"[;:]\s+|,?\s+(?:but|while|whereas|although|though)\s+", re.I)


def prose_words(text: str) -> set[str]:
    """Content words without markers and figures ("4,000", "3.2" are not words)."""
    return {w for w in content_stems(CITATION_MARKER.sub(" ", text)) if not any(ch.isdigit() for ch in w)}


def cited_clauses(sentence: str, known: dict[Any, Any]) -> list[tuple[str, list[int]]]:
    """A sentence cut after each run of markers ("A is 5 [1] and B is 7 [2]."): each part
    with the known sources its run cites; text after the last run joins the last part."""
    out: list[tuple[str, list[int]]] = []
    start = 0
    for run in _MARKER_RUN.finditer(sentence):
        cited = [int(n) for n in CITATION_MARKER.findall(run.group(0)) if int(n) in known]
        if cited:
            out.append((sentence[start : run.end()], cited))
            start = run.end()
    if out and sentence[start:].strip():
        clause, cited = out[-1]
        out[-1] = (clause + sentence[start:], cited)
    return out


def figure_sentences(source: dict[str, Any]) -> list[str]:
    """The sentences (or lines) of a source's text that state a figure."""
    return [s for s in SOURCE_SENTENCE.split(seen_text(source)) if stated_figures(s)]


def described_text(source: dict[str, Any]) -> str:
    return f"{source.get('title') or ''} {source.get('section') or ''} {seen_text(source)}"


def cited_sentences(answer: str, known: dict[Any, Any], *, held: bool = True) -> list[tuple[str, list[int]]]:
    """(sentence, the source numbers it cites) for each prose sentence citing a known source.

    A sentence without markers takes those of the next cited sentence of its paragraph, as
    condition 6 counts it covered by them: an invented sentence placed before a cited one
    is held to that citation (QA round 10, s47); one after the paragraph's last citation is
    held to that citation (QA round 12, m26). A paragraph with no marker (a list item of
    its own, s46) is held to all the answer's sources together. Sentences condition 6 does
    not judge either ("Let me check:", sign-offs) are left out. `held=False`: only the
    sentences that carry markers. An uncited sentence saying the documentation lacks
    something holds nothing of the citation after it: `absence` judges it against every
    source (QA round 12 c22: "The documentation does not mention a cache for Acme Gateway.
    Acme Proxy has one … [proxy page]")."""
    from docsassistant.agent.checks.absence import claims_absence  # absence reads this module

    out = []
    everything = [n for n in known if isinstance(n, int)]
    for paragraph in prose_paragraphs(answer):
        cites = [[int(n) for n in CITATION_MARKER.findall(s) if int(n) in known] for s in paragraph]
        if not held:
            out += [(sentence, cited) for sentence, cited in zip(paragraph, cites, strict=True) if cited]
            continue
        if not any(cites) and not any(CITATION_MARKER.search(s) for s in paragraph):
            out += [(s, everything) for s in paragraph if everything and not says_nothing(s)]
            continue
        # Held to the next citation of the paragraph, else (a trailing sentence) the one
        # before it: "… is 10 seconds [1]. It can be changed at runtime." (QA round 12 m26).
        earlier: list[list[int]] = []
        last: list[int] = []
        for cited in cites:
            last = cited or last
            earlier.append(last)
        kept: list[tuple[str, list[int]]] = []
        later: list[int] = []
        for sentence, cited, before in reversed(list(zip(paragraph, cites, earlier, strict=True))):
            later = cited or later
            held_to = cited or later or before
            unmarked = not CITATION_MARKER.search(sentence) and not says_nothing(sentence)
            if cited or (held_to and unmarked and not claims_absence(sentence)):
                kept.append((sentence, held_to))
        out += reversed(kept)
    return out


def quoted_sentence(sentence: str) -> str:
    """The sentence as the flag quotes it: without its markers."""
    unmarked = re.sub(r"\s+(?=[.,;:!?])", "", CITATION_MARKER.sub("", sentence)).strip()
    return re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", unmarked)  # a list item without its bullet


def seen_text(source: dict[str, Any]) -> str:
    return str(source.get("prompt_text") or source.get("content") or "")
