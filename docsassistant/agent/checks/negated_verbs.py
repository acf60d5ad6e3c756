"""Statements asserting, in other words, what a source says cannot or does not happen.

"The cluster name cannot be changed" answered "You can modify the cluster name later" shares
too few words with its source for the one-flip check (`reversals.py`, which wants 70 % of
the shorter sentence's words) to compare them, yet it says the opposite (QA round 11 s02,
s10, s23, s34, s35). This check looks for a source sentence that negates a verb (after
`not`, `cannot`, `never`) and an answer statement with no negation that uses that verb, or
one of a small group of its synonyms ("modify" for "change"), about the same thing. Part of
condition 7 of `grounded`. Pure functions, no model call.

Measured with `eval/reversal_checks.py` (see docs/flags.md, condition 7).
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.words import sentences, stem, tokens
from docsassistant.agent.checks.yes_no import affirms, is_yes_no

# Verbs documentation negates, grouped with the words a model puts in their place.
_GROUPS = (
    "support work handle accept",
    "change modify alter update edit rename",
    "allow permit let",
    "require need",
    "use employ",
    "create make build",
    "delete remove drop",
    "store save keep persist retain",
    "return give yield",
    "enable turn activate",
    "recommend advise suggest",
    "cancel terminate kill abort",
)
_SYNONYM = {stem(word): f"verb:{i}" for i, group in enumerate(_GROUPS) for word in group.split()}
_NEGATORS = frozenset({"not", "cannot", "never"})
_SKIPPED = frozenset({"be", "been", "being", "able", "to", "always", "ever", "directly", "currently"})
# A source sentence with one of these denies the verb only in some case ("cannot be used
# when …", "cannot be changed unless …"): an answer saying it can is not its opposite.
_CONDITIONAL = frozenset("until unless except only if when whenever before instead but otherwise".split())  # noqa: SIM905
# A statement with one of these states a limit or a case of its own, not the plain opposite.
_RESTRICTIVE = _CONDITIONAL | frozenset("not no never none nor neither cannot without nothing".split())  # noqa: SIM905
# ... and with one of these, a case of its own unless its source names the same case
# ("can be edited after creation" against "cannot be changed after the cluster is created").
_CASE = frozenset({"after", "once"})
_FILLER = frozenset(
    "the a an and or for are is was were be been being this that these those its it of to in on "  # noqa: SIM905
    "at by as with from into can could should would will may might must does do did has have had "
    "you your they them their there which what how also so then yes i we".split()
)
MIN_OVERLAP = 0.4  # Jaccard overlap with the source sentence (chosen on the dev split)
MIN_OTHERS = 2  # content words shared besides the verb


def _canonical(word: str) -> str:
    s = stem(word)
    return _SYNONYM.get(s, s)


def _words(text: str) -> list[str]:
    return [w for w in tokens(text) if not w.isdigit()]


def _content(words: list[str]) -> set[str]:
    return {_canonical(w) for w in words if w not in _FILLER and w not in _NEGATORS}


def _negated_verbs(words: list[str]) -> set[str]:
    """The canonical verbs a `not`/`cannot`/`never` applies to: "cannot be changed" → change."""
    out: set[str] = set()
    for i, word in enumerate(words):
        if word not in _NEGATORS:
            continue
        for nxt in words[i + 1 : i + 4]:
            if nxt not in _SKIPPED:
                if _canonical(nxt).startswith("verb:") or len(nxt) > 2:
                    out.add(_canonical(nxt))
                break
    return out


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _asserts_denied(statement: str, source_sentences: list[list[str]]) -> bool:
    words = _words(statement)
    conditions = {w for w in words if w in _CONDITIONAL}
    if any(w in _RESTRICTIVE and w not in conditions for w in words):
        return False
    mine = _content(words)
    if len(mine) < MIN_OTHERS + 1:
        return False
    scored = [(_jaccard(mine, _content(s)), s) for s in source_sentences]
    best = max((score for score, _ in scored), default=0.0)
    if best < MIN_OVERLAP:
        return False
    # Every closest sentence must deny what the statement asserts, as in `polarity._reversed`.
    for _, source in (pair for pair in scored if pair[0] == best):
        negations = sum(w in _NEGATORS or w in {"no", "none"} for w in source)
        verbs = _negated_verbs(source) & mine
        # A condition the statement states too is the same case: "When the timeout passes,
        # the runs are terminated" against "When the timeout passes, the remaining runs are
        # left running (they are not cancelled)" (QA round 15 w20).
        if negations % 2 == 0 or not verbs or any(w in _CONDITIONAL and w not in words for w in source):
            return False
        if any(w in _CASE and w not in source for w in words) or not conditions <= set(source):
            return False
        if len((mine & _content(source)) - verbs) < MIN_OTHERS:
            return False
    return True


def denied_verbs_asserted(answer: str, sources: list[str], question: str = "") -> list[str]:
    """Sentences of the answer (and a yes/no question answered yes) that assert a verb the
    closest sentence of a cited source negates, worded with the verb or a synonym of it."""
    source_sentences = [_words(s) for text in sources for s in sentences(text)]
    out = [s for s in sentences(answer) if _asserts_denied(re.sub(r"\[\d+\]", " ", s), source_sentences)]
    asked = question.strip()
    if (
        asked
        and is_yes_no(asked)
        and affirms(answer)
        and _asserts_denied(asked.rstrip("?"), source_sentences)
    ):
        out.append(asked)
    return out
