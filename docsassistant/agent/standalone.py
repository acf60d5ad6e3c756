"""The standalone question: the user's message made understandable without the conversation.

"And what is its default value?" after a turn about `hnsw.ef_search` becomes "What is the
default value of hnsw.ef_search?". It drives the searches, grading, rewriting, generation
and verification of the turn. A first turn is its own standalone question (no model call),
and so is a later message that cannot lean on the conversation: no referring word
("it", "that", "the same" …), no opening connector ("and", "what about" …), more than a few
words, and written in English: the referring words are English ones, so a follow-up in
another language ("Und wie hoch ist ihr Standardwert?") always gets the call. Anything
else costs one structured call.

Small models often hand the message back as it came, or trimmed: when a message that refers
back ("its", "and …") gets a "rewrite" adding no word of its own, nothing was resolved, and
searching it finds whatever "its default" matches. Others answer instead of restating
("The default is 60 seconds.", or "Is it 60 seconds?" with a figure nobody mentioned). In
both cases the turn works from the message followed by the earlier question it follows up,
and so it does when the rewrite names a subject nobody mentioned ("it" resolved to a product
the conversation never spoke of) or another item of the previous answer's list than the
one "the second one" counts to (`ordinals.py`); the counted item's name is then added.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from docsassistant.agent.budget import trim_history
from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.checks.yes_no import NAME
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event
from docsassistant.agent.language import looks_english
from docsassistant.agent.ordinals import names_another, picked_name
from docsassistant.agent.prompts import STANDALONE_SYSTEM

FOLLOW_UP = " (follow-up to: "  # joins a message to the question it follows up
HISTORY_TOKENS = 1500  # recent turns are what a follow-up refers to
MAX_GROWTH = 6  # a "rewrite" this many times longer than the message is not a rewrite
SHORT_WORDS = 5  # messages this short are often elliptical ("and for ops?")
_REFERS = re.compile(
    r"\b(it|its|it's|itself|this|that|these|those|they|them|their|theirs|there|he|she|his|her|"
    r"one|ones|same|above|previous|former|latter|earlier|else|other|another|again|also|too)\b",
    re.IGNORECASE,
)
_CONNECTOR = re.compile(r"^\W*(and|but|or|also|so|then|what about|how about|same)\b", re.IGNORECASE)


class StandaloneQuestion(BaseModel):
    """The user's last message rewritten to stand on its own."""

    standalone_question: str = Field(
        description="The last user message as a self-contained question, in the user's language."
    )


def stands_alone(question: str) -> bool:
    """True when the message cannot lean on the conversation (no model call needed)."""
    long_enough = len(question.split()) > SHORT_WORDS
    return (
        long_enough
        and looks_english(question)
        and not _REFERS.search(question)
        and not _CONNECTOR.match(question)
    )


def adds_nothing(rewritten: str, question: str) -> bool:
    """True when every word of the rewrite was already in the message (an echo)."""
    words = set(re.findall(r"\w+", question.lower()))
    return set(re.findall(r"\w+", rewritten.lower())) <= words


_QUESTION_WORD = re.compile(
    r"^\W*(what|which|who|whom|whose|why|when|where|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|has|have|had|must|may|list|show|explain|describe|tell|give|compare)\b",
    re.I,
)
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def answers_instead(rewritten: str, question: str, conversation: str) -> bool:
    """True when the "rewrite" answers rather than restates: a statement for a question
    ("The default is 60 seconds."), or a figure the conversation never mentioned ("Is the
    timeout 60 seconds?"). Searching, grading and verifying against it would take the
    model's guess for the user's question."""
    asked = question.rstrip().endswith("?") or bool(_QUESTION_WORD.match(question))
    still_a_question = rewritten.rstrip().endswith("?") or bool(_QUESTION_WORD.match(rewritten))
    known = set(_FIGURE.findall(f"{question} {conversation}"))
    return (asked and not still_a_question) or any(n not in known for n in _FIGURE.findall(rewritten))


def names_unheard(rewritten: str, question: str, conversation: str) -> list[str]:
    """Names in the rewrite (a capitalised word inside a sentence, an identifier) that
    neither the message nor the conversation uses: "it" after a turn about Acme Gateway
    rewritten as a question about "Acme Proxy" (QA round 10, s20). The rewrite then picks
    the subject itself, and every later step would follow it."""
    heard = f"{question} {conversation}".lower()
    return [name for name in NAME.findall(rewritten) if name.strip("`").lower() not in heard]


def with_earlier_question(question: str, earlier: str) -> str:
    """The follow-up, with the question it follows up, for a rewrite that resolved nothing."""
    return f"{question}{FOLLOW_UP}{earlier})" if earlier else question


def standalone_question(
    messages: list[BaseMessage], question: str, ctx: AgentContext, earlier: str | None = None
) -> dict[str, Any]:
    """State update with `standalone_question` (+ the call's usage and a trace event).
    `earlier` is the previous turn's standalone question (else its message is used)."""
    history = messages[:-1] if messages and isinstance(messages[-1], HumanMessage) else messages
    if not any(isinstance(m, HumanMessage) for m in history) or stands_alone(question):
        return {"standalone_question": question}
    recent = trim_history(history, HISTORY_TOKENS)
    parsed, raw = invoke_structured(
        ctx.llm, StandaloneQuestion, [SystemMessage(STANDALONE_SYSTEM), *recent, HumanMessage(question)]
    )
    rewritten = parsed.standalone_question.strip() if isinstance(parsed, StandaloneQuestion) else ""
    usable = bool(rewritten) and len(rewritten) <= MAX_GROWTH * len(question) + 200
    result = rewritten if usable else question
    # Only a message that refers back: a short one without referring words ("pgvector
    # install steps") may well stand alone, and its echo is then the right answer.
    refers_back = bool(_REFERS.search(question) or _CONNECTOR.match(question))
    echoed = refers_back and adds_nothing(result, question)
    conversation = " ".join(str(m.content) for m in recent)
    answered = usable and answers_instead(result, question, conversation)
    invented = usable and bool(names_unheard(result, question, conversation))
    # "The second one" is counted in the previous answer's list, not left to the rewrite (s40).
    last_answer = next((str(m.content) for m in reversed(history) if isinstance(m, AIMessage)), "")
    picked = picked_name(question, last_answer)
    misread = usable and picked is not None and names_another(result, picked, last_answer)
    if echoed or answered or invented or misread:
        previous = earlier or next(
            (str(m.content) for m in reversed(history) if isinstance(m, HumanMessage)), ""
        )
        said = f"{question} ({picked})" if picked else question
        result = with_earlier_question(said, previous[: MAX_GROWTH * len(question) + 200])
    trace = [
        event(
            "decision",
            kind="standalone_question",
            question=question,
            standalone=result,
            used=usable and not echoed and not answered and not invented and not misread,
            echoed=echoed,
            answered=answered,
            invented_subject=invented,
            misread_pick=misread,
        )
    ]
    return {"standalone_question": result, "trace": trace, **usage(raw)}
