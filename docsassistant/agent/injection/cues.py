"""Grammar of a sentence that speaks to the model reading it, not to a person.

Documentation gives orders all the time ("Ignore this warning", "The model must call the
tool"), so an imperative is no evidence. What a planted order has and documentation lacks is
an addressee that only makes sense for a model reading *this* text ("the AI reading this
page", "when you summarise this chunk", "replies produced from this document", "your system
prompt ... superseded"), or a payload aimed at the person the model answers (ask them for a
password, tell them a lie). Each family below is one of those shapes, written as a small
grammar of interchangeable words so that paraphrases match, not phrases.

`addressed_to_reader` families are strong: `detector` flags a sentence that matches one on
its own, like its patterns. The weaker cues in `patterns.CUE` ("your answer", "tell the user") only lower the margin
it needs.
"""

from __future__ import annotations

from docsassistant.agent.injection.cues_address import ADDRESS_FAMILIES
from docsassistant.agent.injection.cues_orders import ORDER_FAMILIES
from docsassistant.agent.injection.cues_planted import PLANTED_FAMILIES
from docsassistant.agent.injection.cues_reader import READER_FAMILIES
from docsassistant.agent.injection.cues_reply import REPLY_FAMILIES
from docsassistant.agent.injection.cues_vocative import VOCATIVE_FAMILIES

# In this order: a sentence's reasons list its families as they are listed here.
FAMILIES = {
    **ADDRESS_FAMILIES,
    **ORDER_FAMILIES,
    **REPLY_FAMILIES,
    **READER_FAMILIES,
    **VOCATIVE_FAMILIES,
    **PLANTED_FAMILIES,
}


def addressed_to_reader(sentence: str) -> list[str]:
    """The families of model-addressing grammar `sentence` matches (empty: none)."""
    return [name for name, pattern in FAMILIES.items() if pattern.search(sentence)]
