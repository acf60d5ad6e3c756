"""A source's "only" widened, or a source's list narrowed by an answer's "only": part of
condition 7 (docs/flags.md).

"RHEL and Rocky 8 and 9 are supported on both x86_64 and arm64 [1]", [1] being the row "|
RHEL / Rocky 8, 9 | Supported | Supported | x86_64 only |" of a table whose other rows say
"x86_64 and arm64" (blind QA round 17 w24). Every word is on the page, the row says
"Supported", and a verifier of the writer's kind passes it.

A source line or sentence restricting something to one term ("x86_64 only", "only on
Linux") restricts what it is about: its row label, or its other content words. The term's
siblings are the words a source lists it with ("x86_64 and arm64", "Linux, Windows or
macOS"). An answer clause without a negation or an "only" of its own that names the term,
one of its siblings and what the restriction is about says more than the source allows.

The converse, `narrowed_lists`: "Delayed messages are available only in the Enterprise
edition [1]", [1] saying "available in the Pro and Enterprise editions" (blind QA round 19
w20). An answer clause restricting to a term that a cited sentence about the same thing lists
with siblings, none of which the clause names, says less than the source does, and wrongly.
Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import CONTRAST, SOURCE_SENTENCE, TABLE_CELLS, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.words import FILLER, tokens

_TERM = r"[A-Za-z][\w.+-]*[\w+]"
_ONLY = re.compile(rf"\b({_TERM})\s+only\b|\bonly\s+(?:on\s+|in\s+|with\s+|for\s+)?({_TERM})\b", re.I)
_NAME = re.compile(r"[A-Z0-9_]")
# An answer's "only in the Enterprise edition": the article skipped to reach the term.
_ONLY_ANSWER = re.compile(
    rf"\b({_TERM})\s+only\b(?!\s+(?:on|in|with|for|to|the|if|when)\b)|\bonly\s+(?:on\s+|in\s+|with\s+|for\s+|to\s+)?(?:the\s+)?({_TERM})\b",
    re.I,
)
_LISTED = re.compile(rf"\b({_TERM})(?:\s*,\s*|\s+(?:and|or)\s+)({_TERM})\b", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|only|cannot|without|except)\b|n't\b", re.I)
MIN_ABOUT = 2  # words of what a sentence's restriction is about an answer clause must name


def _restrictions(text: str) -> list[tuple[str, set[str]]]:
    """(term, what it restricts) for each "T only" / "only T" of `text`: a table row's label
    (its first word), or a sentence's other content words."""
    out: list[tuple[str, set[str]]] = []
    for line in SOURCE_SENTENCE.split(text):
        for m in _ONLY.finditer(line):
            if not (term := restricted_term(m, line)):
                continue
            if cells := TABLE_CELLS.match(line):
                label = tokens(cells.group(1).split("|")[0])
                about = {label[0]} if label else set()
            else:
                about = {w for w in tokens(line) if w not in FILLER and w != term and w != "only"}
            if about:
                out.append((term, about))
    return out


def restricted_term(match: re.Match[str], line: str) -> str | None:
    """The term an `_ONLY` match restricts to, lower-cased: a name ("Linux", "x86_64",
    "Enterprise"), not a common word ("tool definitions only" narrows an option's meaning,
    not a platform); "not only … but also" restricts nothing."""
    written = match.group(1) or match.group(2)
    if not _NAME.search(written) or written.lower() in FILLER or written.isdigit():
        return None
    return None if re.search(r"\bnot\s+$", line[: match.start()], re.I) else written.lower()


def _siblings(text: str) -> dict[str, set[str]]:
    """Each word a source lists with others ("x86_64 and arm64"), with those others."""
    out: dict[str, set[str]] = {}
    for m in _LISTED.finditer(text):
        a, b = m.group(1).lower(), m.group(2).lower()
        if a != b and a not in FILLER and b not in FILLER and not a.isdigit() and not b.isdigit():
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)
    return out


def widened_restrictions(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences naming a term of a cited "only" together with one of its siblings,
    about the same thing (see the module docstring)."""
    text = "\n".join(str(s.get("content") or "") for s in cited_sources)
    restrictions = _restrictions(text)
    if not restrictions:
        return []
    siblings = _siblings(text)
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for clause in CONTRAST.split(sentence):
            if _NEGATION.search(clause):
                continue
            said = {w.lower() for w in tokens(clause)}
            for term, about in restrictions:
                # A row is named by its label; a sentence by half its words (two at least).
                need = 1 if len(about) == 1 else max(MIN_ABOUT, (len(about) + 1) // 2)
                named = len(about & said) >= need
                if term in said and named and siblings.get(term, set()) & said:
                    out.append(quoted_sentence(sentence))
                    break
            else:
                continue
            break
    return out


def narrowed_lists(answer: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Answer clauses that restrict with "only" to a term a cited sentence about the same thing
    lists with siblings the clause does not name (see the module docstring)."""
    lines = [
        line
        for s in cited_sources
        for line in SOURCE_SENTENCE.split(str(s.get("content") or ""))
        if not TABLE_CELLS.match(line)
    ]
    out: list[str] = []
    for sentence in SOURCE_SENTENCE.split(FENCED_CODE.sub(" ", answer)):
        for clause in CONTRAST.split(sentence):
            terms = [t for m in _ONLY_ANSWER.finditer(clause) if (t := restricted_term(m, clause))]
            said = {w.lower() for w in tokens(clause)}
            if terms and any(_narrows(term, said, lines) for term in terms):
                out.append(quoted_sentence(sentence))
                break
    return out


def _narrows(term: str, said: set[str], lines: list[str]) -> bool:
    """A source line lists `term` with siblings, none of them in `said`, is about what `said`
    is about (half its other words, two at least), and does not itself restrict `term`."""
    for line in lines:
        siblings = _siblings(line).get(term, set())
        if not siblings or siblings & said:
            continue
        if any(restricted_term(m, line) == term for m in _ONLY.finditer(line)):
            continue
        about = {
            w for w in tokens(line) if w not in FILLER and w != term and w not in siblings and w != "only"
        }
        if len(about & said) >= max(MIN_ABOUT, (len(about) + 1) // 2):
            return True
    return False
