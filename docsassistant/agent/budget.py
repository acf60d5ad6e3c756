"""Fitting prompts into the model's context window (Ollama would truncate silently)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage, trim_messages
from langchain_core.messages.utils import count_tokens_approximately

# Code and identifiers tokenise worse than prose: assume 3.5 characters per token.
CHARS_PER_TOKEN = 3.5


def estimate_tokens(text: str) -> int:
    return int(len(text) / CHARS_PER_TOKEN) + 1


# What the model reads in place of an earlier turn's stop message ("I had to stop before
# answering: Ollama at http://… returned HTTP 502 …"): the error text is for the user.
STOPPED_TURN = "(No answer: that turn stopped before answering.)"
STOP_PREFIX = "I had to stop before answering: "  # how every stop message starts


def stopped_answer(text: str) -> AIMessage:
    """The history message of a turn that ended without an answer (see STOPPED_TURN)."""
    return AIMessage(text, additional_kwargs={"stopped": True})


def _stopped(message: BaseMessage) -> bool:
    """A stopped turn's answer: marked so, or a stop message however it reached the history
    (a full-suite run once saw one reach a later prompt; the mark is not relied on alone)."""
    text = message.content if isinstance(message.content, str) else ""
    return bool(message.additional_kwargs.get("stopped")) or (
        isinstance(message, AIMessage) and text.startswith(STOP_PREFIX)
    )


def trim_history(messages: list[BaseMessage], max_tokens: int) -> list[BaseMessage]:
    """The most recent messages that fit, starting on a user turn; a stopped turn's
    message reads STOPPED_TURN."""
    if not messages:
        return []
    messages = [AIMessage(STOPPED_TURN) if _stopped(m) else m for m in messages]
    return trim_messages(
        messages,
        max_tokens=max_tokens,
        token_counter=lambda msgs: count_tokens_approximately(msgs, chars_per_token=CHARS_PER_TOKEN),
        strategy="last",
        start_on="human",
        include_system=False,
        allow_partial=False,
    )


def fit_chunks(
    chunks: list[dict[str, Any]], max_tokens: int, per_chunk_chars: int = 2000
) -> list[dict[str, Any]]:
    """The leading chunks whose (capped) text fits in `max_tokens`; at least one."""
    kept: list[dict[str, Any]] = []
    used = 0
    for chunk in chunks:
        text = (chunk.get("prompt_text") or chunk["content"])[:per_chunk_chars]
        cost = estimate_tokens(text) + 40  # the <document> wrapper and attributes
        if kept and used + cost > max_tokens:
            break
        kept.append(chunk)
        used += cost
    return kept


def message_tokens(messages: list[BaseMessage]) -> int:
    """The estimate used for every prompt (tool calls and message overhead included)."""
    return count_tokens_approximately(messages, chars_per_token=CHARS_PER_TOKEN)


def fit_tool_results(steps: list[BaseMessage], max_tokens: int, min_chars: int = 300) -> list[BaseMessage]:
    """This turn's tool calls and results within `max_tokens`: the oldest results are
    shortened first (calls and results stay paired, so the model still sees every call)."""
    fitted = list(steps)
    for i, message in enumerate(fitted):
        excess = message_tokens(fitted) - max_tokens
        if excess <= 0:
            break
        if isinstance(message, ToolMessage) and isinstance(message.content, str):
            keep = max(min_chars, len(message.content) - int(excess * CHARS_PER_TOKEN) - 20)
            if keep < len(message.content):
                fitted[i] = message.model_copy(update={"content": message.content[:keep] + " …[shortened]"})
    return fitted
