"""Which language a text is written in, as far as the agent's word checks need to know.

The referring words of a follow-up and the word-share checks of verification are English
ones: a follow-up in another language always gets the standalone call, and an answer in
another language than its English sources is not held to their words.
"""

from __future__ import annotations

import re

from docsassistant.agent.checks.figures import CODE_SPANS

_LINKS = re.compile(r"\S*://\S*|\]\([^)]*\)")  # a URL's words are no language
# English function words: a message with fewer than two of them (or where they are under a
# fifth of its words) is taken as written in another language.
_ENGLISH = frozenset(
    "a an the is are was were be been do does did can could should would will how what which "  # noqa: SIM905
    "who whom why when where of to for with from on at by as and or not i you we my your our "
    "there this that it its".split()
)


def looks_english(question: str) -> bool:
    """Two English function words at least, and a fifth of the words."""
    words = re.findall(r"[^\W\d_]+", question.lower())
    common = sum(word in _ENGLISH for word in words)
    return common >= 2 and common * 5 >= len(words)


# Function words of the other languages Llama 3.1 lists (German, French, Spanish, Italian,
# Portuguese), none of them an English word.
_OTHER = frozenset(
    "der die das und ist nicht für mit von zu ein eine einen dem den des wird werden sind auch "  # noqa: SIM905
    "oder wenn beträgt le la les et est pas pour avec des du une dans sont sur ce qui que "
    "el los las para con del una por como più di che il gli della sono "
    "per non uma um não em ao pelo pela são é dos à".split()
)


def looks_foreign(text: str) -> bool:
    """Written in another language than English: two function words of German, French,
    Spanish, Italian or Portuguese at least, and more of them than English ones. Not
    `not looks_english`, which a terse English answer fails ("`hnsw.ef_search` defaults to 40")."""
    prose = _LINKS.sub(" ", CODE_SPANS.sub(" ", text))
    words = re.findall(r"[^\W\d_]+", prose.lower())
    other = sum(word in _OTHER for word in words)
    return other >= 2 and other > sum(word in _ENGLISH for word in words)
