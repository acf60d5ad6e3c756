"""A removed or deprecated option given as current: part of condition 7 (docs/flags.md).

"Set `broker.legacy_port` to change the client port [1]", [1] saying "`broker.legacy_port`:
deprecated in 2.8 and removed in 3.0. Use `broker.listen_port` instead." (QA round 13 w27).
Every word and figure of the answer is on the page, and a verifier of the writer's kind
passes it; the reader who follows it sets an option the product no longer reads. An answer
that names such an option must say what the sources say of it: removed, deprecated,
replaced, or which versions it applies to.

Only a backquoted name that is the subject of the removal counts ("`x` was removed",
"`x`: deprecated in 2.8", "Removed `x`."), never one that merely sits near the word
("`retention.max_age` controls when messages are removed"). Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.checks.cited_clauses import SOURCE_SENTENCE, quoted_sentence
from docsassistant.agent.checks.figures import FENCED_CODE

_NAME = r"`(-{0,2}[A-Za-z_][\w.-]*(?:\(\))?)`"  # a key, a method or a CLI option ("--password")
# In an answer the name may come with its value: "`backup.legacy_chunker: true`", "`--level=3`"
# (QA round 14 w30). Only the key is compared with the removed names.
_SET_NAME = r"`(-{0,2}[A-Za-z_][\w.-]*(?:\(\))?)(?:\s*[:=]\s*[^`\n]*)?`"
_NOUN = (
    r"(?:\s+(?:[\w-]+\s+)?(?:option|setting|parameter|flag|key|field|property|variable|section|command|endpoint|"
    r"method|class|interface|constant|annotation|package|module|function))?"
)
_RUN = rf"{_NAME}{_NOUN}(?:\s*(?:,|\band\b|\bor\b)\s*(?:the\s+)?{_NAME}{_NOUN})*"
_GONE = (
    r"(?:deprecated|removed|obsolete|discontinued|no\s+longer\s+(?:supported|available|used|read|exists?|"
    r"has\s+any\s+effect|honou?red)|(?:replaced|superseded)\s+by|renamed\s+to)"
)
# "`x` was removed", "`x` and `y` are deprecated", "`x`: deprecated in 2.8", "The `x` option
# has been replaced by `y`": the names, then a copula (not "will be": still current), then the word.
# "The `plain_http` option of `[vault]` was removed": where it was may come between (blind QA
# round 20 w21).
_WHERE = r"(?:\s+(?:of|in|from)\s+(?:the\s+)?`[^`\n]+`(?:\s+(?:section|command|table|block))?)?"
_SUBJECT = re.compile(
    rf"(?:^|\bthe\s+|[\s(])(?P<run>{_RUN}){_WHERE}\s*(?::\s*|\s+(?:is|was|are|were|has\s+been|have\s+been)\s+"
    rf"(?:now\s+|also\s+|officially\s+)?)(?:(?!not\b|never\b)\w+\s+)?{_GONE}\b",
    re.I,
)
# "Removed `x`.", "- Deprecated: `x` and `y`": the word opening a line or sentence, then the names.
_HEADED = re.compile(rf"^\W*(?:deprecated|removed)\s*:?\s+(?:the\s+)?(?P<run>{_RUN})", re.I)
# What an answer says when it knows: the removal itself, a replacement, or the versions.
_AWARE = re.compile(
    r"\b(?:deprecat\w*|removed|deleted|obsolete|discontinued|no\s+longer|replac\w*|renamed|supersed\w*|"
    r"instead|previously|formerly|used\s+to|migrat\w*|legacy\s+(?:option|setting)|(?:before|prior\s+to|until|older\s+than|earlier\s+than)\s+"
    r"(?:version\s+|release\s+)?v?\d|older\s+(?:versions|releases))",
    re.I,
)


# "The following members of `ModelOptionsUtils` have been removed": the names after a
# preposition are where the removed things were, not what was removed.
_PLACE = re.compile(r"\b(?:of|on|in|from|to|for|with|by|at|into)\s+(?:the\s+)?$", re.I)


def removed_names(text: str) -> set[str]:
    """The backquoted names `text` says are removed, deprecated or replaced, lower-cased."""
    out: set[str] = set()
    for sentence in SOURCE_SENTENCE.split(text):
        for pattern in (_SUBJECT, _HEADED):
            for m in pattern.finditer(sentence):
                if pattern is _SUBJECT and _PLACE.search(sentence[: m.start("run")]):
                    continue
                out |= {name.lower() for name in re.findall(_NAME, m.group("run"))}
    return out


def _same(name: str, other: str) -> bool:
    """`broker.legacy_port` and `legacy_port` are one option; `port` and `legacy_port` are not."""
    return name == other or name.endswith(f".{other}") or other.endswith(f".{name}")


def removed_options(answer: str, sources: list[dict[str, Any]]) -> list[str]:
    """Answer sentences naming an option that a source says is removed or deprecated, where
    no sentence of the answer naming it says so (or names the versions it is for)."""
    gone = set().union(*(removed_names(s.get("prompt_text") or s.get("content") or "") for s in sources))
    if not gone:
        return []
    prose = FENCED_CODE.sub(" ", answer)
    named: dict[str, list[str]] = {}
    for sentence in SOURCE_SENTENCE.split(prose):
        for name in {n.lower() for n in re.findall(_SET_NAME, sentence)}:
            if any(_same(name, g) for g in gone):
                named.setdefault(name, []).append(sentence)
    out: list[str] = []
    for sentences in named.values():
        if not any(_AWARE.search(re.sub(r"`[^`]*`", " ", s)) for s in sentences):
            quoted = quoted_sentence(sentences[0])
            out += [quoted] if quoted not in out else []
    return out
