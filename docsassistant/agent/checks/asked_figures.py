"""A question asking for a figure, answered with none: the answer is about something else.

"How long are immutable snapshots locked by default?" answered "Immutable snapshots need an
S3 bucket with Object Lock enabled or a Vault [1]": every word is its page's, the verifier
passes it, and the reader never learns the 30 days (QA round 14 w25, round 13 w09: a true
sentence that answers another question). An answer to "how long / how many / how much /
how often", or to "what is the default / maximum / minimum …", must state a number
somewhere (prose or code), or say why there is none ("indefinitely", "no limit", "until
you delete it", "it depends on …"), or say the documentation does not give it.

`eval/asked_figure_checks.py`: 32 of the 104 docs-QA questions and 6 of the shared set's 20
ask for a figure; every answerable gold answer states one and the unanswerable ones say the
documentation lacks it: 0 flagged.
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.absence import claims_absence
from docsassistant.agent.checks.figures import NUMBER_WORDS
from docsassistant.agent.citations import MARKER

_ASKS_FIGURE = re.compile(
    r"\bhow\s+(?:long|many|much|often|big|large|old|far|frequently|soon)\b"
    r"|\bwhat(?:'s|\s+is|\s+are)?\s+(?:the\s+|its\s+|their\s+)?(?:default|maximum|minimum|max|min|largest|smallest|"
    r"highest|lowest|limit|size|number|port|timeout|interval|version)\b",
    re.I,
)
# A number in any spelling: digits (not inside a name: "S3", "SHA256"; a version "v2" is one),
# or a number word ("one", "twelve").
_NUMBER = re.compile(
    r"(?<![A-Za-z_])\d|\bv\d|\b(?:" + "|".join(NUMBER_WORDS) + r"|once|twice|single|a dozen)\b", re.I
)
# Answers that give no figure on purpose: no bound, a bound of another kind, "it depends".
_NO_FIGURE = re.compile(
    r"\b(?:indefinitely|forever|unlimited|unbounded|infinite|never|until|depends|varies|"
    r"no (?:limit|maximum|minimum|default|cap|expiry|timeout|fixed)|not (?:limited|capped|set|fixed|in|covered|documented|stated|given|mentioned)|"
    r"as (?:long|many|much|often) as|any number|none|nothing)\b",
    re.I,
)


def asks_for_figure(question: str) -> bool:
    """The question asks how long, how many, how much, or for a default or limit."""
    return bool(_ASKS_FIGURE.search(question))


def figure_not_given(answer: str, question: str) -> list[str]:
    """[a note] when `question` asks for a figure and `answer` gives none and says why not
    nowhere (see the module's docstring); [] otherwise."""
    text = MARKER.sub(" ", answer)
    if not text.strip() or not asks_for_figure(question):
        return []
    if _NUMBER.search(text) or _NO_FIGURE.search(text) or claims_absence(text):
        return []
    asked = _ASKS_FIGURE.search(question).group(0).lower()
    return [f"the question asks {asked!r} and the answer gives no figure"]
