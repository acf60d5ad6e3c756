"""Which replies may skip retrieval: small talk, and declining an out-of-scope request.

Everything else the model answers without a tool is a documentation answer from memory;
the agent searches before showing it (or flags it `not_from_documentation`). A decline is
searched too unless the message is too short to search: models also decline questions the
documentation answers; it is shown as it is when the search finds nothing relevant. Both checks
are deliberately narrow: a miss costs one search and one grading call, while a false
"small talk" would show an unchecked answer.
"""

from __future__ import annotations

import re

_SMALL_TALK = re.compile(
    r"""^\W*(
        hi|hello|hey|hiya|howdy|yo|greetings|good\ (morning|afternoon|evening|day)
        |thanks?(\ you)?|thx|ty|cheers|much\ appreciated|great|cool|nice|perfect|awesome
        |ok(ay)?|got\ it|bye|goodbye|see\ you|how\ are\ you|who\ are\ you|what\ can\ you\ do
        |what\ are\ you|help
    )\b[\s\w,!.?']{0,24}$""",
    re.IGNORECASE | re.VERBOSE,
)
_ARITHMETIC = re.compile(
    r"^\W*(what'?s|what\ is|calculate|compute)?\s*\(?-?\d+(\.\d+)?\s*[-+*/x×]\s*-?\d+(\.\d+)?\)?\s*[?=.!]*$",
    re.IGNORECASE | re.VERBOSE,
)
_DECLINE = re.compile(
    r"""^\W*(
        (i'?m|i\ am)\ (sorry|afraid|not\ able|unable)|sorry|unfortunately|apologies
        |i\ can(not|'t|\ only)|i\ (only|don'?t)\ (help|answer|handle|write|do)|that'?s\ outside
        |this\ is\ outside|i'?m\ (here|designed|only\ able)\ to
    )\b""",
    re.IGNORECASE | re.VERBOSE,
)
MAX_DECLINE_CHARS = 320
# A greeting followed by a question is a question: "hi, whats the timeout?", "thanks! and
# the timeout?" (QA round 8a W3).
_ASKS = re.compile(
    r"\b(what'?s?|whats|how|where|which|when|why|who|can|could|does|do|is|are|should|and|also)\b",
    re.IGNORECASE,
)
# A refusal that says what the documentation lacks is a claim about the documentation,
# to be checked by a search ("I'm sorry, but I don't have information about …", said by
# llama3.1 instead of calling the tool); one that states a figure answers from memory.
_CLAIMS_ABSENCE = re.compile(
    r"\b(don'?t|do\ not|doesn'?t|does\ not|didn'?t)\ (have|contain|include|mention|cover|know)\b"
    r"|\bno\ (information|details|data|mention|record)\b|\b(couldn'?t|could\ not|can'?t|cannot|unable\ to)\ find\b"
    r"|\bnot\ (sure|aware)\b",
    re.IGNORECASE | re.VERBOSE,
)


def is_small_talk(question: str) -> bool:
    """Greetings, thanks, farewells, "who are you", and bare arithmetic; not a greeting
    with a question after it."""
    text = " ".join(question.split())
    if _ARITHMETIC.match(text):
        return True
    match = _SMALL_TALK.match(text)
    return bool(match) and not _ASKS.search(text[match.end(1) :])


def is_decline(reply: str) -> bool:
    """A short refusal of the request ("Sorry, I can only help with the documentation …"),
    stating no figure and no claim about what the documentation lacks."""
    text = " ".join(reply.split())
    if not 0 < len(text) <= MAX_DECLINE_CHARS or not _DECLINE.match(text):
        return False
    return not re.search(r"\d", text) and not _CLAIMS_ABSENCE.search(text)
