"""The graph's state. History lives across turns; the other fields are per turn.
Finished turns are not kept here but in the `turn_records` table (`turn_store`).

Per-turn list fields use `reset_or_add`: the runner sends `None` at the start of a
turn to empty them, and nodes append to them.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


def reset_or_add(old: list | None, new: list | None) -> list:
    """Append `new` to `old`; `None` empties the list (start of a turn)."""
    if new is None:
        return []
    return (old or []) + list(new)


def merge_chunks(old: list[dict] | None, new: list[dict] | None) -> list[dict]:
    """Accumulate retrieved chunks across rounds without duplicates; `None` resets."""
    if new is None:
        return []
    merged = list(old or [])
    index = {c["chunk_id"]: i for i, c in enumerate(merged)}
    for chunk in new:
        if chunk["chunk_id"] in index:
            merged[index[chunk["chunk_id"]]] = {**merged[index[chunk["chunk_id"]]], **chunk}
        else:
            index[chunk["chunk_id"]] = len(merged)
            merged.append(chunk)
    return merged


def sum_or_reset(old: int | None, new: int | None) -> int:
    """Add up per-turn counters; `None` starts from zero."""
    if new is None:
        return 0
    return (old or 0) + new


class AgentState(TypedDict, total=False):
    # Across turns.
    # Only what the graph resumes from: the turn records live in `turn_records`.
    messages: Annotated[list[AnyMessage], add_messages]  # user questions and final answers
    # This turn.
    question: str
    component: str | None
    steps: Annotated[list[AnyMessage], reset_or_add]  # the agent's tool calls and results
    queries: Annotated[list[str], reset_or_add]
    pending_calls: list[dict[str, Any]]  # tool calls the next retrieve / run_sql executes
    chunks: Annotated[list[dict[str, Any]], merge_chunks]  # every chunk retrieved this turn
    new_chunk_ids: list[int]  # retrieved by the last round, still to grade
    relevant_ids: Annotated[list[int], reset_or_add]
    sufficient: bool
    searches: int
    rewrites: int
    no_progress: bool  # the last rewrite was too close to an earlier query
    counted: bool  # count_chunks already ran this turn
    answer: str
    sources: list[dict[str, Any]]  # the numbered evidence the answer was written from
    citations: list[dict[str, Any]]
    unsupported: list[str]  # claims the verifier rejected (drives one regeneration)
    regenerate: bool  # the verifier asks for one regeneration
    regenerated: bool
    truncated: bool  # the answer's end is missing (`answer_truncated`): never grounded
    verification: dict[str, Any]
    trace: Annotated[list[dict[str, Any]], reset_or_add]
    stop_reason: str | None
    failed: bool  # the turn ended without an answer (a failed call, a budget before any draft)
    model_calls: Annotated[int, sum_or_reset]
    prompt_tokens: Annotated[int, sum_or_reset]
    started_at: float
    # Added by agent-tools (follow-ups, the tool executor, unchecked replies).
    standalone_question: str | None  # the question made self-contained; set by decide's first round
    earlier_standalone: str | None  # the last finished turn's, for a follow-up to point back to
    search_log: Annotated[list[tuple[str, str]], reset_or_add]  # (component, query) searched
    round_searched: bool  # the last tool round ran a search (its results go to grading)
    idle_rounds: int  # tool rounds in a row in which no call could run
    direct_reply: str  # the model's reply without evidence, checked by one search first
