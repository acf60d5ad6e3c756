"""Sentences of an answer that say the opposite of their source: condition 7 of `grounded`.

A verifier of the same kind as the writer tends to pass an answer that repeats its source
with one word flipped ("enabled" for "disabled", a dropped "not"), and a model asked "Is X
enabled by default?" tends to say yes. Both keep nearly every word of the source sentence,
which is what this check looks for: an answer sentence whose content words are mostly in
one sentence of a cited source, with an odd number of flips between them (a negation on
one side only, or the two words of an opposite pair). Pure functions, tested directly; no
model call, so it cannot be talked out of its verdict.
"""

from __future__ import annotations

import re
from typing import Any

from docsassistant.agent.grounding import CODE_SPANS

_NEGATIONS = frozenset("not no never none nor neither cannot without".split())  # noqa: SIM905
# Opposite pairs documentation states settings and behaviour with. A sentence holding both
# words of a pair ("not enabled, it is disabled") says nothing clear about it: the pair is skipped.
_PAIRS = (
    "enabled/disabled enable/disable enables/disables true/false required/optional "
    "mandatory/optional supported/unsupported allowed/disallowed allowed/forbidden "
    "automatically/manually synchronous/asynchronous synchronously/asynchronously "
    "sync/async blocking/non-blocking inclusive/exclusive increase/decrease "
    "increases/decreases higher/lower larger/smaller faster/slower more/less "
    "before/after ascending/descending minimum/maximum included/excluded "
    "persistent/ephemeral deprecated/recommended on/off allow/deny allows/denies "
    "accept/reject accepts/rejects accepted/rejected include/exclude includes/excludes "
    "valid/invalid success/failure succeeds/fails visible/hidden upper/lower "
    "stateful/stateless uppercase/lowercase removed/available added/removed"
)
# The pairs from on/off on: on the corpus's raw pages (each sentence of four words or more
# against the other paragraphs of its page) misreads went from 371 to 376 of 28,612, and one
# word of such a pair swapped for the other was caught for 2,212 of 2,424 sentences (1
# before). public/private was left out: 43 more misreads, all Java code lines.
_OPPOSITES = [tuple(pair.split("/")) for pair in _PAIRS.split(" ")]
_POLAR = _NEGATIONS | {word for pair in _OPPOSITES for word in pair}
_WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
# Statements compared for polarity keep a protocol's version in its word: "HTTP/3" and
# "HTTP/2" are not both "http" (QA round 11 s50). content_stems, which the word-share checks
# use and were measured with, keeps `_WORD`.
_VERSIONED_WORD = re.compile(r"[a-z]+/\d+(?:\.\d+)?|" + _WORD.pattern)
# Not coverage.py's content words: those drop figures and short words, and sentences sharing
# only their prose words then pass for one another (0.87 % of corpus sentences misread, not 0.64 %).
_FILLER = frozenset(
    "the a an and or but for are is was were be been being this that these those its it "  # noqa: SIM905
    "of to in on at by as with from into can could should would will may might must does "
    "do did has have had you your they them their there which when what how also so then "
    "yes".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|\s\|\s")
_MARKER = re.compile(r"\[\d+\]")
# "Yes, …" / "No, …" answer the question; they are not part of the statement after them.
# Only when punctuation follows: "No index is needed" states something, "No, …" answers.
_ANSWER_WORD = re.compile(r"^\W*(yes|yeah|yep|no|nope|correct|right|indeed|exactly)\s*[,.;:!—–-]+\s*", re.I)
_AFFIRMS = re.compile(
    r"^\W*(yes|yeah|yep)\b|^\W*(correct|that'?s (right|correct)|right|indeed|exactly)\s*[,.;:!—–\[-]", re.I
)
_DENIES = re.compile(r"^\W*(no|nope|not quite|that'?s (not|incorrect|wrong)|incorrect)\b", re.I)
_YES_NO_QUESTION = re.compile(
    r"^\W*(is|are|was|were|does|do|did|can|could|will|would|should|has|have|had|must)\b", re.I
)
# Content stems, each negation's scope (the stems of its part of the sentence), per opposite
# pair which side (1 or 2) is used, and every stem of the text.
Profile = tuple[frozenset[str], tuple[frozenset[str], ...], dict[int, int], frozenset[str]]
MIN_SHARED = 3  # content words two sentences must share to be about the same thing
MIN_SHARE = 0.7  # ... and the share of the shorter one's content words they cover


# "per API key rather than per IP address" says what "per API key, not per IP address" says
# (QA round 11 s49), so the contrast counts as a negation. "instead of" does not: it often
# opens a sentence ("Instead of X, Y"), where it negates X, not the sentence (read as a
# negation, it raised dev misreads of eval/reversal_checks.py from 79 to 96).
_CONTRAST = re.compile(r"\brather than\b")
# "should not exceed 256 MB", "without exceeding the limit": a bound, stated as "at most"
# as often (docs-QA gold answers qa-single-07 and -42 were taken for reversals).
# SQL's "IF NOT EXISTS" negates nothing a page says (docs-QA qa-single-20).
_NEGATED_BOUND = re.compile(r"\b(?:not|never|without)\s+(?:exceed\w*|more than|go(?:ing)? over)\b")
_SQL_GUARD = re.compile(r"\bif not exists\b")
# A negation governs the words between the punctuation marks around it: "If a segment has
# not been indexed, Milvus resorts to brute force" does not negate "Milvus brute-forces the
# raw data".
_SCOPE_END = re.compile(r"[,;:()\[\]—–]")


def tokens(text: str, word: re.Pattern[str] = _WORD) -> list[str]:
    """The lower-cased words of `text`, "-n't" spelled out as "not"."""
    text = re.sub(r"n['’]t\b", " not", text.lower())  # "doesn't" → "does not"
    return word.findall(text)


def _base(word: str) -> str:
    """The word without an inflection: "closes", "closed" and "close" are one word (QA round
    9: "never closes" passed against "are closed"). Pair words are matched as written: by
    base they raised corpus misreads to 0.78 % and lowered synthetic catches to 97.75 %."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def stem(word: str) -> str:
    """The word as this module compares it: uninflected, cut to six letters."""
    return _base(word)[:6]  # "requires" / "required", "indexes" / "index": crude, but both sides alike


def content_stems(text: str) -> set[str]:
    """The text's content words, stemmed as this module compares them; figures left out."""
    return {stem(w) for w in tokens(text) if w not in _FILLER and not w.isdigit()}


def _profile(text: str) -> Profile:
    """Content stems, negation scopes, opposite pairs' sides and all stems (see `Profile`)."""
    text = _CONTRAST.sub(" not ", _NEGATED_BOUND.sub(" at most ", _SQL_GUARD.sub(" if ", text.lower())))
    words = tokens(text, _VERSIONED_WORD)
    present = set(words)
    content = frozenset(stem(w) for w in words if w not in _FILLER and w not in _POLAR)
    scopes = tuple(
        frozenset(stem(w) for w in part if w not in _FILLER and w not in _NEGATIONS)
        for part in (tokens(p, _VERSIONED_WORD) for p in _SCOPE_END.split(text))
        for word in part
        if word in _NEGATIONS
    )
    sides: dict[int, int] = {}
    for i, (first, second) in enumerate(_OPPOSITES):
        has = (first in present, second in present)
        if has == (True, False):
            sides[i] = 1
        elif has == (False, True):
            sides[i] = 2
        elif has == (True, True):
            sides[i] = 0  # both: unclear
    return content, scopes, sides, frozenset(stem(w) for w in words if w not in _FILLER)


def _negations(a: Profile, b: Profile, scoped: bool) -> int:
    """`a`'s negations; when `scoped`, only those bearing on what `b` says: one whose scope
    holds a word of `b` (or that governs nothing). "building on macOS is not supported; use
    the pre-built containers" does not negate "Use our pre-built Docker containers"."""
    return sum(1 for scope in a[1] if not scoped or not scope or scope & b[3])


def _flips(a: Profile, b: Profile, scoped: bool = True) -> int:
    """Polarity differences between `a` and `b`. Unscoped, every negation counts: a sentence
    restates a shorter one only with the same polarity ("Acme Gateway does not support
    HTTP/2" is not the heading "Acme Gateway" said again)."""
    flips = (_negations(a, b, scoped) - _negations(b, a, scoped)) % 2
    for pair, side in a[2].items():
        other = b[2].get(pair)
        if side and other and side != other:
            flips += 1
    return flips


def sentences(text: str) -> list[str]:
    """The sentences of `text` (table cells and lines apart), code spans left out."""
    return [s.strip() for s in _SENTENCE.split(CODE_SPANS.sub(" ", text)) if s.strip()]


def _shared(a: Profile, b: Profile) -> int:
    """Content words in common, plus the opposite pairs both use (on either side): "Is TLS
    1.1 supported" and "TLS 1.0 and 1.1 are not supported" share three, not two."""
    return len(a[0] & b[0]) + len(a[2].keys() & b[2].keys())


def _size(profile: Profile) -> int:
    return len(profile[0]) + len(profile[2])


def _reversed(statement: str, source_sentences: list[Profile], context: list[Profile] | None = None) -> bool:
    """True when the source sentence closest to `statement` says its opposite (all of them,
    on a tie) and no sentence of `source_sentences` or `context` restates it. Closest is by
    Jaccard overlap of content words, so a long sentence that happens to share three words
    does not outvote the one restating it."""
    mine = _profile(statement)
    if _size(mine) < MIN_SHARED:
        return False
    about = [
        s
        for s in source_sentences
        if _shared(mine, s) >= max(MIN_SHARED, MIN_SHARE * min(_size(mine), _size(s)))
    ]
    if not about:
        return False
    overlap = [_shared(mine, s) / (_size(mine) + _size(s) - _shared(mine, s)) for s in about]
    closest = [s for s, o in zip(about, overlap, strict=True) if o == max(overlap)]
    if not all(_flips(mine, s) % 2 for s in closest):
        return False
    return not any(_restates(mine, s) for s in [*source_sentences, *(context or [])])


def _restates(mine: Profile, source: Profile) -> bool:
    """A source sentence of the statement's polarity whose every content word the statement
    holds: the statement says it, with more context. "HTTP/3 isn't supported by Acme Gateway;
    it supports HTTP/1.1 and HTTP/2" against "Acme Gateway supports HTTP/1.1 and HTTP/2.
    HTTP/3 is not supported." is closest to the first sentence, but restates the second
    (QA round 11 s50)."""
    # A pair word the statement inflects otherwise ("support" for "supported") still counts.
    pairs = all(
        pair in mine[2] or (side and stem(_OPPOSITES[pair][side - 1]) in mine[0])
        for pair, side in source[2].items()
    )
    holds = source[0] <= mine[0] and pairs
    return _size(source) >= 2 and holds and not _flips(mine, source, scoped=False) % 2


# Clauses an answer joins that its source may state apart, each compared alone: "Support
# for Python 3.8 was removed in 4.0, so later releases do not support it" (QA round 11 s62),
# "keeps entries in memory only and does not save them to disk" (s04). "and" only before a
# second verb: split at every "and", dev misreads of eval/reversal_checks.py rose from 79 to
# 105 of 7,664 sentences.
_CLAUSE = re.compile(
    r";\s+|,\s+(?:so|but|while|whereas)\s+"
    r"|,?\s+and\s+(?=(?:does|do|is|are|can|will|must|should|has|have|never|not)\b)"
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


# A heading states nothing, so it contradicts nothing: "=== Prompt and Completion Data" is
# not the opposite of "Prompt and completion data is not exported by default".
_HEADING = re.compile(r"^\s*(?:#{1,6}|={1,6})\s")


def reversed_statements(answer: str, sources: list[str], question: str = "") -> list[str]:
    """Statements of the answer that a cited source says the opposite of.

    Each prose sentence of the answer is compared with each sentence of `sources` (the
    contents of the sources it cites). An answer opening with yes or no to a yes/no
    `question` also states the question itself, as asked or negated: "Is it enabled by
    default?" answered "Yes [1]." claims it is enabled."""
    profiles: list[Profile] = []
    headings: list[Profile] = []  # they may still restate a statement ("# Acme Gateway")
    for s in (s for text in sources for s in sentences(text)):
        (headings if _HEADING.match(s) else profiles).append(_profile(s))
    out: list[str] = []
    for sentence in sentences(answer):
        statement = _ANSWER_WORD.sub("", _MARKER.sub(" ", sentence))
        clauses = _CLAUSE.split(statement)
        # Once one clause is a source's sentence, the others are judged alone, not with it.
        restated = any(_restates(_profile(c), s) for c in clauses for s in profiles + headings)
        judged = clauses if restated else dict.fromkeys([statement, *clauses])
        if any(_reversed(part, profiles, headings) for part in judged) and sentence not in out:
            out.append(sentence)
    if question and is_yes_no(question):
        asked = question.strip().rstrip("?")
        if (affirms(answer) and _reversed(asked, profiles, headings)) or (
            _DENIES.match(answer) and _reversed(f"not {asked}", profiles, headings)
        ):
            out.append(question.strip())
    return out


# A name: a capitalised word inside a sentence, a backquoted term, or an identifier with
# `_`, `.` or `::` ("Acme Proxy", `retry.max_attempts`).
NAME = re.compile(r"(?<=[\w,;:)] )[A-Z][\w-]*|`[^`]+`|\b\w+(?:[_.]\w+|::\w+)+\b")


def unconfirmed_names(question: str, cited_sources: list[dict[str, Any]]) -> list[str]:
    """Names of a yes/no question answered yes (capitalised words inside the sentence, code,
    dotted or snake_case names; "Intel-based" read as "Intel") that no cited source holds,
    compared without case: "Yes, Acme Proxy supports WebSockets [proxy page]", the page
    never naming WebSockets (QA round 12 m60). Of the 16 yes/no questions of the two
    docs-QA sets, held to their whole source files, one names a thing its sources do not
    ("LLM"; its answer is no)."""
    text = " ".join(
        f"{s.get('title') or ''} {s.get('section') or ''} {s.get('content') or ''}" for s in cited_sources
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


def contradicted_by_evidence(answer: str, question: str, evidence: list[str]) -> list[str]:
    """A yes (or no) to a yes/no question that names something, which a sentence of any
    retrieved source naming the same things says the opposite of: "Does Acme Proxy also
    support HTTP/3?" answered "Yes, like Acme Gateway it does [gateway page]" while the
    proxy page, retrieved but not cited, says it does not (QA round 10, s48). Only
    sentences holding every name of the question are compared, so the gateway page's
    "supports HTTP/3" cannot contradict a question about the proxy; a question with no
    name is left to the cited sources (`reversed_statements`)."""
    named = {n.strip("`").lower() for n in NAME.findall(question) if len(n.strip("`")) > 1}
    if not named or not is_yes_no(question):
        return []
    profiles: list[Profile] = []
    context: list[Profile] = []  # the rest of those sentences' pages, which may restate the
    # answer naming less ("Acme Gateway supports HTTP/2. HTTP/3 is not supported."; QA 11 s50)
    for text in evidence:
        page = sentences(text)
        naming = [s for s in page if all(n in s.lower() for n in named)]
        profiles += [_profile(s) for s in naming]
        if naming:
            context += [_profile(s) for s in page if s not in naming]
    asked = question.strip().rstrip("?")
    if (affirms(answer) and _reversed(asked, profiles, context)) or (
        _DENIES.match(answer) and _reversed(f"not {asked}", profiles, context)
    ):
        return [question.strip()]
    return []
