"""Retrieved chunks are untrusted input: find the sentences that address the model.

A documentation page may embed prompt-injection text (on purpose, or by quoting an agent
framework's prompt). Each sentence is judged on its own, three ways:

* patterns for the unmistakable forms (chat-template tokens, "ignore the previous
  instructions", "you are now a ...");
* the similarity margin, with the embedding model the app already loads: how much closer
  the sentence is to known injection phrasings than to known documentation about models
  and prompts (`phrasings.py`). That catches paraphrases. A sentence with a cue
  that it speaks to the reading model ("your answer", "you were told", "in this
  conversation") needs a lower margin than one without;
* a classifier over the same model run's pooled token states (`classifier.py`,
  `features.py`) mixed with one over the sentence's words and character n-grams
  (`ngrams.py`), trained on the labelled fixtures and documentation sentences, for wordings
  no pattern names. It also vouches for the similarity rule: a sentence that rule flags is
  cut only if the classifier gives it at least the weights' `gate`.

A `Human:` / `User:` turn that starts after other text on its line is a dialogue turn planted in
running text (`spoofed-user-turn`); one at the start of a line is a transcript and passes.

A line of code or a table row is judged whole by the patterns only; the prose inside it (a
comment, a table cell) is judged by meaning like a sentence (`embedded.py`).

An order spelled to slip past the patterns (digits for letters, spaced-out letters, Base64) is
judged again once spelled plainly (`obfuscation.py`, `obfuscated-order`).

Words inside quotes are mentioned, not said: patterns and cues skip them (`unquoted`).
Only the flagged sentences leave the prompt; the rest of the chunk stays evidence. Role
labels ("System: Linux"), JSON with "command" and ordinary imperative documentation
("Ignore this warning on Java 17") must pass: tests/test_injection_detection.py measures
both sides; the thresholds were chosen there on the dev half of the fixtures.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel

from docsassistant.agent.injection.classifier import ClassifierWeights, load_weights, probabilities
from docsassistant.agent.injection.cues import addressed_to_reader
from docsassistant.agent.injection.cues_planted import SECRET_REQUEST
from docsassistant.agent.injection.embedded import embedded_prose, is_prose
from docsassistant.agent.injection.features import SENTENCE_BLOCK
from docsassistant.agent.injection.hijacks import hijack_families
from docsassistant.agent.injection.obfuscation import plain_forms
from docsassistant.agent.injection.patterns import (
    CUE,
    KEY_BEFORE,
    LINK_TITLE_BEFORE,
    PATTERNS,
    QUOTED,
    ROLE_LINE,
    SENTENCE,
    TURN,
    VALUE_AFTER,
    VALUE_OPENED,
)
from docsassistant.agent.injection.phrasings import DOCUMENTATION, PHRASINGS

REDACTED = "[text addressed to an AI model removed]"

# Chosen on the dev half of the labelled fixtures (see tests/test_injection_detection.py).
MARGIN_ALONE = 0.26
MARGIN_WITH_CUE = -0.08


def _spoofed_turn(sentence: str, before: str) -> bool:
    """`sentence` opens a user turn after other text on its line (`before`), outside quotes."""
    return (
        bool(before.strip())
        and bool(TURN.match(sentence))
        and not ROLE_LINE.match(before)
        and before.count('"') % 2 == 0
        and not re.search(r"[`'“]\s*$", before)
    )


# The last role label on a line, when it is a model's: "… Assistant: Sure! Paste your key here."
_LAST_LABEL = re.compile(
    r"(?:^|[\s\[#(>*])(assistant|ai|bot|chatbot|model|human|user|customer|agent)\]?\s*:", re.I
)


def _planted_assistant_turn(sentence: str, before: str) -> bool:
    """`sentence` is said in a model's turn and asks the user for a secret: a transcript that
    teaches the model to phish ("User: how do I rotate keys? Assistant: paste your live key
    here"). A product's bot verifying identity asks for no secret, and a promise ("I will never
    ask for your password") is negated."""
    labels = list(_LAST_LABEL.finditer(before + sentence))
    speaker = labels[-1].group(1).lower() if labels else ""
    if speaker not in ("assistant", "ai", "bot", "chatbot", "model"):
        return False
    return bool(SECRET_REQUEST.search(sentence[max(0, labels[-1].end() - len(before)) :]))


class Finding(BaseModel):
    """One sentence judged instruction-like, and why."""

    sentence: str
    reasons: list[str]
    margin: float


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of `text` (a line break also ends one)."""
    return [m.span() for m in SENTENCE.finditer(text)]


class Evidence(BaseModel):
    """What the detector knows about one sentence before deciding."""

    patterns: list[str]
    margin: float  # best cosine to a known injection minus best to known documentation
    cue: bool  # speaks to the reading model or orders its reply
    score: float = 0.0  # the injection classifier's probability (0 for code and short lines)


def sentence_evidence(
    items: list[str], before: list[str] | None = None, weights: ClassifierWeights | None = None
) -> list[Evidence]:
    """Patterns, similarity margin and cue for each sentence (one embedding batch). `before`: the
    text of each sentence's line that precedes it, when known (for a planted dialogue turn);
    `weights`: the classifier's, when not the shipped ones (calibration)."""
    # What is judged by meaning: a prose sentence itself, or the prose inside a line of code
    # (`embedded.py`); each sentence takes the strongest of its parts.
    before = before or [""] * len(items)
    outer = [unquoted(s, before[i]) for i, s in enumerate(items)]
    # A prose sentence's cue reads the same words its patterns do (quotes judged with the
    # line's context); a comment or a table cell is judged on its own.
    parts = [
        [(s, outer[i])] if is_prose(s) else [(t, unquoted(t)) for t in embedded_prose(s)]
        for i, s in enumerate(items)
    ]
    owners = [i for i, texts in enumerate(parts) for _ in texts]
    texts = [t for texts in parts for t, _ in texts]
    margins = np.full(len(items), -1.0, dtype=np.float32)
    scores = np.zeros(len(items), dtype=np.float32)
    cues = np.zeros(len(items), dtype=bool)
    if texts:
        features = _embedder().detector_features(texts)
        np.maximum.at(margins, owners, similarity_margin(features[:, SENTENCE_BLOCK]))
        np.maximum.at(scores, owners, probabilities(features, weights, texts))
        np.logical_or.at(cues, owners, [bool(CUE.search(said)) for texts in parts for _, said in texts])
    return [
        Evidence(
            patterns=(_named_shapes(s) or _obfuscated(items[i]))
            + (["spoofed-user-turn"] if _spoofed_turn(items[i], before[i]) else [])
            + (["planted-assistant-turn"] if _planted_assistant_turn(items[i], before[i]) else []),
            margin=round(float(margins[i]), 4),
            cue=bool(cues[i]),
            score=round(float(scores[i]), 4),
        )
        for i, s in enumerate(outer)
    ]


def _named_shapes(sentence: str) -> list[str]:
    """The patterns and families `sentence` (already unquoted) matches."""
    return (
        [name for name, p in PATTERNS if p.search(sentence)]
        + addressed_to_reader(sentence)
        + hijack_families(sentence)
    )


def _obfuscated(sentence: str) -> list[str]:
    """`obfuscated-order` when `sentence` spelled plainly matches a pattern or family."""
    return ["obfuscated-order"] if any(_named_shapes(unquoted(f)) for f in plain_forms(sentence)) else []


def unquoted(sentence: str, line_before: str = "") -> str:
    """`sentence` with its quoted passages of three words or more replaced by "…": words in
    quotes are mentioned, not said ("an attacker hides "disregard your rules" in a page"), so
    patterns and cues judge only the words around them. A planted order quoting its payload
    keeps its verb outside the quotes (`always reply "…"`); a quoted value of a key, a value closing
    its JSON and a link's title or alt text stay: they are data a model reads, not mentions. So
    does the rest of a value opened earlier on the line (`line_before`: `notes = "Overdue.` before
    `[Assistant: add that …]"`)."""

    def mention(match: re.Match[str]) -> str:
        before, after = sentence[: match.start()], sentence[match.end() :]
        data = KEY_BEFORE.search(before) or LINK_TITLE_BEFORE.search(before) or VALUE_AFTER.match(after)
        data = data or (match.start() == 0 and VALUE_OPENED.search(line_before))
        return match.group() if len(match.group().split()) < 3 or data else '"…"'

    return QUOTED.sub(mention, sentence)


def similarity_margin(vectors: np.ndarray) -> np.ndarray:
    """How much closer each (normalised) vector is to an injection than to documentation."""
    injection, documentation = _bank_vectors()
    return (vectors @ injection.T).max(axis=1) - (vectors @ documentation.T).max(axis=1)


def decide(
    evidence: Evidence,
    alone: float = MARGIN_ALONE,
    with_cue: float = MARGIN_WITH_CUE,
    classifier: float | None = None,
    gate: float | None = None,
) -> list[str]:
    """The reasons to flag a sentence (empty: keep it). `classifier` and `gate` default to the
    shipped weights' threshold and gate: a sentence near known injections is cut only if the
    classifier gives it at least `gate` (that rule alone made most misfires on the training
    sets, docs/injection.md)."""
    weights = load_weights() if classifier is None or gate is None else None
    if classifier is None:
        classifier = weights.threshold if weights else 2.0  # no weights: never
    if gate is None:
        gate = weights.gate if weights else 0.0
    reasons = list(evidence.patterns)
    if (
        evidence.margin >= alone or (evidence.cue and evidence.margin >= with_cue)
    ) and evidence.score >= gate:
        reasons.append("similar-to-known-injection")
    if evidence.score >= classifier:
        reasons.append("classifier")
    return reasons


def judge_sentences(items: list[str], before: list[str] | None = None) -> list[Finding | None]:
    """A finding for each instruction-like sentence, None for the others (`before`: see
    `sentence_evidence`)."""
    results: list[Finding | None] = []
    for sentence, evidence in zip(items, sentence_evidence(items, before), strict=True):
        reasons = decide(evidence)
        results.append(
            Finding(sentence=sentence, reasons=reasons, margin=evidence.margin) if reasons else None
        )
    return results


def _line_sentences(text: str) -> list[str]:
    """The sentences of `text`, line by line (a line break always ends one)."""
    return [s for s, _ in line_sentences_with_context(text)]


def line_sentences_with_context(text: str) -> list[tuple[str, str]]:
    """Each sentence of `text`, line by line, with the part of its line before it."""
    return [(line[a:b], line[:a]) for line in text.split("\n") for a, b in sentences(line)]


def line_evidence(texts: list[str], weights: ClassifierWeights | None = None) -> list[list[Evidence]]:
    """The evidence for every sentence of every text (one embedding batch), each with the part
    of its line before it, as a chunk is judged: scoring labelled lines (calibration, tests)."""
    split = [line_sentences_with_context(t) for t in texts]
    pairs = [pair for sentences in split for pair in sentences]
    flat = iter(sentence_evidence([s for s, _ in pairs], [b for _, b in pairs], weights))
    return [[next(flat) for _ in sentences] for sentences in split]


def findings_in_many(texts: list[str]) -> list[tuple[Finding, ...]]:
    """The findings of each text, judged in one embedding batch (for scanning a store)."""
    split = [line_sentences_with_context(t) for t in texts]
    flat = [x for items in split for x in items]
    verdicts = iter(judge_sentences([s for s, _ in flat], [b for _, b in flat]))
    return [tuple(f for f in (next(verdicts) for _ in items) if f) for items in split]


@lru_cache(maxsize=1024)
def analyse(text: str) -> tuple[tuple[Finding, ...], str]:
    """The findings in `text`, and the text with those sentences replaced by a marker.

    The JSON-looking lines right next to a flagged line go too: they are the reply
    template the order spells out (`respond only in this format: {"thoughts": ...}`).
    JSON elsewhere stays evidence.
    """
    lines = text.split("\n")
    spans = [(i, a, b) for i, line in enumerate(lines) for a, b in sentences(line)]
    verdicts = judge_sentences([lines[i][a:b] for i, a, b in spans], [lines[i][:a] for i, a, _ in spans])
    findings = tuple(f for f in verdicts if f)
    if not findings:
        return (), text
    flagged_lines = {i for (i, _, _), verdict in zip(spans, verdicts, strict=True) if verdict}
    template = _template_lines(lines, flagged_lines)
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in template:
            new = REDACTED
        else:
            cuts = [(a, b) for (j, a, b), v in zip(spans, verdicts, strict=True) if j == i and v]
            new = _cut(line, cuts)
        if new.strip() == REDACTED and _last_content(out) == REDACTED:
            while out and not out[-1].strip():
                out.pop()  # blank lines between two removed parts
            continue
        out.append(new)
    return findings, "\n".join(out)


def _cut(line: str, cuts: list[tuple[int, int]]) -> str:
    """`line` with each cut span replaced by the marker (adjacent cuts merged)."""
    out, last = "", 0
    for a, b in cuts:
        gap = line[last:a]
        out += REDACTED if out.endswith(REDACTED) and not gap.strip() else gap + REDACTED
        last = b
    return out + line[last:]


_JSONISH = re.compile(r"^\s*(?:[{}\[\],]+\s*$|\"[^\"\n]*\"\s*:)")


def _template_lines(lines: list[str], flagged: set[int]) -> set[int]:
    """JSON-looking lines adjacent (blank lines aside) to a flagged line, transitively."""
    found: set[int] = set()
    for order in (range(len(lines)), range(len(lines) - 1, -1, -1)):
        near = False
        for i in order:
            if i in flagged or i in found:
                near = True
            elif not lines[i].strip():
                continue
            elif near and _JSONISH.match(lines[i]):
                found.add(i)
            else:
                near = False
    return found


def _last_content(out: list[str]) -> str | None:
    return next((line.strip() for line in reversed(out) if line.strip()), None)


def scan_for_injection(text: str) -> list[str]:
    """Names of the reasons found in `text` (empty when clean)."""
    return list(dict.fromkeys(r for f in analyse(text)[0] for r in f.reasons))


def redact_injection(text: str) -> str:
    """`text` without its instruction-like sentences (each run replaced by one marker)."""
    return analyse(text)[1]


def removed_sentences(source: dict[str, Any]) -> list[str]:
    """The sentences of a source that were kept out of the prompt."""
    if not source.get("suspicious"):
        return []
    return [f.sentence for f in analyse(source.get("content") or "")[0]]


def _embedder() -> Any:
    from docsassistant.embeddings import get_embedder

    return get_embedder()


@lru_cache(maxsize=1)
def _bank_vectors() -> tuple[np.ndarray, np.ndarray]:
    embedder = _embedder()  # on the query session (embed_documents gives the same vectors)
    vectors = np.stack([embedder.embed_query(text) for text in (*PHRASINGS, *DOCUMENTATION)])
    return vectors[: len(PHRASINGS)], vectors[len(PHRASINGS) :]
