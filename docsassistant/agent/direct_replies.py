"""Which replies may skip retrieval: small talk, and declining an out-of-scope request.

Everything else the model answers without a tool is a documentation answer from memory;
the agent searches before showing it (or flags it `not_from_documentation`). Both checks
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


def is_small_talk(question: str) -> bool:
    """Greetings, thanks, farewells, "who are you", and bare arithmetic."""
    text = " ".join(question.split())
    return bool(_SMALL_TALK.match(text) or _ARITHMETIC.match(text))


def is_decline(reply: str) -> bool:
    """A short refusal ("Sorry, I can only help with the documentation …")."""
    text = " ".join(reply.split())
    return 0 < len(text) <= MAX_DECLINE_CHARS and bool(_DECLINE.match(text))
