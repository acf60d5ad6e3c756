"""Yes/no questions, answers that say yes, and what a yes confirms that no source names.

A yes to "Does Acme Proxy support WebSockets?" states the question: its names, and on
evidence found incomplete its words, must be in a cited source (condition 5 of `grounded`,
docs/flags.md). Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.words import content_stems

_AFFIRMS = re.compile(
    r"^\W*(yes|yeah|yep)\b|^\W*(correct|that'?s (right|correct)|right|indeed|exactly)\s*[,.;:!—–\[-]", re.I
)
_YES_NO_QUESTION = re.compile(
    r"^\W*(is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|must)\b", re.I
)


def affirms(answer: str) -> bool:
    """The answer opens by saying yes ("Yes, …", "Correct: …")."""
    return bool(_AFFIRMS.match(answer))


# Where a question's last clause starts: "Gateway's is 60 seconds; is Proxy's the same?"
_LAST_CLAUSE = re.compile(r"[;:.!?]\s+|,\s+(?:so|but|and)\s+")


def is_yes_no(question: str) -> bool:
    """A question answered by yes or no, also after a premise (QA round 10, s25: "Acme
    Gateway's idle timeout is 60 seconds; is Acme Proxy's the same?")."""
    last = _LAST_CLAUSE.split(question.strip())[-1]
    return bool(_YES_NO_QUESTION.match(question)) or (
        question.rstrip().endswith("?") and bool(_YES_NO_QUESTION.match(last))
    )


# A name: a capitalised word inside a sentence, a backquoted term, or an identifier with
# `_`, `.` or `::` ("Acme Proxy", `retry.max_attempts`).
NAME = re.compile(r"(?<=[\w,;:)] )[A-Z][\w-]*|`[^`]+`|\b\w+(?:[_.]\w+|::\w+)+\b")


def unconfirmed_names(question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Names of a yes/no question answered yes (capitalised words inside the sentence, code,
    dotted or snake_case names; "Intel-based" read as "Intel") that no cited source holds,
    compared without case: "Yes, Acme Proxy supports WebSockets [proxy page]", the page
    never naming WebSockets (QA round 12 m60). Of the 16 yes/no questions of the two
    docs-QA sets, held to their whole source files, one names a thing its sources do not
    ("LLM"; its answer is no). A source's component counts as a name it holds: the
    product a page documents is rarely named in each chunk ("Is there a maximum file size
    that Vellumkeep can back up?", the limits chunk of component `vellumkeep`: blind QA round
    20 r11)."""
    text = " ".join(
        f"{s.get('title') or ''} {s.get('section') or ''} {s.get('component') or ''} {s.get('content') or ''}"
        for s in cited_sources
    ).lower()
    out: list[str] = []
    for match in NAME.finditer(question):
        name = re.sub(r"['’]s$", "", match.group(0).strip("`")).split("-")[0]
        if len(name) >= 2 and name.lower() not in text and name not in out:
            out.append(name)
    return out


def unconfirmed_words(question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Content words of a yes/no question that no cited source uses (stemmed): for a yes on
    evidence the grader found incomplete, "Does Acme Vault encrypt backups?" answered "Yes
    … [1]", [1] never speaking of encryption (QA round 12 m44). Not used on complete
    evidence: a user's words often differ from the docs' (2 of the 2 yes answers of the
    docs-QA yes/no questions would fail)."""
    text = " ".join(
        f"{s.get('title') or ''} {s.get('section') or ''} {s.get('content') or ''}" for s in cited_sources
    )
    missing = content_stems(question) - content_stems(text)
    words = re.findall(r"[A-Za-z][\w-]*", question)
    return [w for w in dict.fromkeys(words) if content_stems(w) and content_stems(w) <= missing]
