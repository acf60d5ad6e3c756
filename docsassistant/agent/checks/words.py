"""Words and sentences as the checks compare them: tokens, crude stems, content words.

Shared by the checks that compare an answer's words with its sources' (`reversals`,
`word_support`, the sibling, absence and count checks …), so both sides of a comparison are
cut and stemmed alike.
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.figures import CODE_SPANS

WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
# Not coverage.py's content words: those drop figures and short words, and sentences sharing
# only their prose words then pass for one another (0.87 % of corpus sentences misread, not 0.64 %).
FILLER = frozenset(
    "the a an and or but for are is was were be been being this that these those its it "  # noqa: SIM905
    "of to in on at by as with from into can could should would will may might must does "
    "do did has have had you your they them their there which when what how also so then "
    "yes".split()
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+|\s\|\s")


def tokens(text: str, word: re.Pattern[str] = WORD) -> list[str]:
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
    return {stem(w) for w in tokens(text) if w not in FILLER and not w.isdigit()}


def first_content_stem(word: str) -> str | None:
    """The first content word of `word`, stemmed: one per written word, in writing order, even
    where the tokenizer splits it ("beträgt" is "betr" and "gt"; a set would pick either)."""
    return next((stem(w) for w in tokens(word) if w not in FILLER and not w.isdigit()), None)


def sentences(text: str) -> list[str]:
    """The sentences of `text` (table cells and lines apart), code spans left out."""
    return [s.strip() for s in _SENTENCE.split(CODE_SPANS.sub(" ", text)) if s.strip()]
