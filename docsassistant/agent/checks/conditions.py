"""A source's condition dropped: part of condition 7 (docs/flags.md).

"Yes, acknowledged messages can be lost if the broker crashes [1]", [1] saying "With
`never`, acknowledged messages can be lost if the broker crashes" (QA round 13 w08). The
answer is the source sentence without its opening condition: every word is on the page,
so the word checks and a verifier of the writer's kind pass it, and the reader takes a rare
case for the rule.

A cited sentence restating the main clause of a source sentence that opens with a
condition ("If …,", "When …,", "With …,", "Unless …,", "Only …,"), or ends with one
introduced by "only" ("… only when you restore on Windows onto an NTFS volume"), must keep that
condition: a word of each of its parts joined by "and" (a condition of two parts kept in
one is dropped), or a condition word of its own and none of the condition's words (the
condition in other words). A condition the user's message states is already given. Pure functions, no model call.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from docsassistant.agent.checks.cited_clauses import (
    SOURCE_SENTENCE,
    cited_sentences,
    quoted_sentence,
    seen_text,
)
from docsassistant.agent.checks.figures import FENCED_CODE
from docsassistant.agent.checks.words import content_stems, tokens

_OPENING = re.compile(
    r"^\W*(?P<cond>(?:only\s+)?(?:if|when|whenever|with|without|unless|once|provided(?:\s+that)?|as\s+long\s+as|"
    r"in\s+case)\b[^,]{3,120}),\s+(?P<main>[^,].{15,})$",
    re.I | re.S,
)
_CONDITION_WORDS = frozenset(
    "if when whenever unless only once provided long case except depending otherwise while "  # noqa: SIM905
    "requires require required need needs must".split()
)
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
# "Windows ACLs are restored only when you restore on Windows onto an NTFS volume" (QA round
# 14 w18): a condition after the main clause restricts it only with "only" before it; a bare
# trailing "if"/"when" clause is as often incidental ("… and retries when it fails").
# "Basic authentication is only permitted when TLS is enabled" (blind QA round 17 w06, w07):
# the "only" may stand before the main clause's verb, which stays the main clause's.
_TRAILING = re.compile(
    r"^\W*(?P<main>(?:`[^`\n]*`|[^;:`]){10,}?)(?:,\s*and)?\s+only\s+(?P<verb>(?:[a-z]+\s+){0,2}?)"
    r"(?P<cond>(?:if|when|whenever|with|once|after|while|as\s+long\s+as|"
    r"provided(?:\s+that)?)\b(?:`[^`\n]*`|[^,;:`]){3,160}?)\s*[.!?]?$",
    re.I | re.S,
)
# Words of permission a sentence with "can" or "may" restates.
_PERMISSION = content_stems("permitted allowed possible supported available")
_MAY = re.compile(r"\b(?:can|may|able to)\b", re.I)
MIN_MAIN_WORDS = 3
MIN_RESTATED = 0.8  # of the main clause's content words the answer's sentence holds
_AND = re.compile(r"\s+and\s+", re.I)
_ASIDE = re.compile(r"\([^()]*\)")  # "(default 15 minutes)" qualifies a part; it is not one


class Conditioned(NamedTuple):
    """A source sentence read as its condition and its main clause."""

    cond: set[str]  # the condition's content words (not the main clause's, not "if"/"only")
    main: set[str]  # the main clause's content words
    written: str  # the condition as written
    main_says: set[str]  # condition words inside the main clause ("… lost if the broker crashes")
    parts: list[set[str]]  # the content words of each of its parts joined by "and", asides left out


def conditioned(text: str) -> list[Conditioned]:
    """Each sentence of `text` that opens with a condition or ends with an "only" one."""
    out = []
    for sentence in SOURCE_SENTENCE.split(text):
        if m := split_condition(sentence):
            main = content_stems(m[1])
            if len(main) >= MIN_MAIN_WORDS:
                # Its condition words ("if", "only") are not its subject: `own` reads those.
                cond = content_stems(m[0]) - main - _CONDITION_WORDS
                says = {w for w in tokens(m[1]) if w in _CONDITION_WORDS}
                parts = [
                    content_stems(p) - main - _CONDITION_WORDS for p in _AND.split(_ASIDE.sub(" ", m[0]))
                ]
                out.append(Conditioned(cond, main, m[0].strip(), says, [p for p in parts if p]))
    return out


def split_condition(sentence: str) -> tuple[str, str] | None:
    """(condition, main clause) of a sentence that opens with a condition or ends with an
    "only if/when …" one, else None."""
    sentence = sentence.strip()
    if m := _OPENING.match(sentence):
        return m.group("cond"), m.group("main")
    # A trailing condition may end its clause rather than the sentence ("…; with TLS off the
    # agent refuses to start").
    for clause in (sentence, sentence.split(";")[0]):
        if m := _TRAILING.match(clause.strip()):
            return f"only {m.group('cond')}", f"{m.group('main')} {m.group('verb')}".strip()
    return None


def dropped_conditions(answer: str, sources: list[dict[str, Any]], users_words: str = "") -> list[str]:
    """Cited sentences that restate a cited source's conditioned statement without its
    condition (see the module docstring)."""
    by_n = {s.get("n"): s for s in sources}
    # Inline code read as words: "With `never`, …" keeps its condition (cited_sentences drops code).
    unquoted = _INLINE_CODE.sub(r"\1", FENCED_CODE.sub(" ", answer))
    # A condition said anywhere in the answer (or by the user) is kept: "Set it to `never`
    # for speed. Then acknowledged messages can be lost …" states it one sentence before.
    given = content_stems(users_words) | content_stems(unquoted)
    out: list[str] = []
    for sentence, cited in cited_sentences(unquoted, by_n):
        words = content_stems(sentence)
        if _MAY.search(sentence):  # "can use basic authentication" restates "is permitted" (w06)
            words |= _PERMISSION
        said = {w for w in tokens(sentence) if w in _CONDITION_WORDS}
        for found in (c for n in cited for c in conditioned(seen_text(by_n[n]))):
            if len(words & found.main) < MIN_RESTATED * len(found.main):
                continue
            if kept(found, given, own=bool(said - found.main_says)):
                continue
            out.append(quoted_sentence(sentence))
            break
    return out


def kept(found: Conditioned, given: set[str], own: bool) -> bool:
    """The condition of `found` is kept by the answer's (and the user's) words `given`: a
    word of each of its parts ("only when that run was due within `scheduler.catchup_window`
    and the job has `catchup: true`" answered "…, provided the job has `catchup: true`"
    keeps one part of two: blind QA round 15 w17). An answer with a condition word of its
    own (`own`: "only when fsync is off" for "With `never`, …") restates the condition in
    other words when it shares none of its words."""
    if not found.cond or (own and not found.cond & given):
        return True
    return all(part & given for part in found.parts)
