"""A thread's turns read back (nothing is re-run), turns of threads from before the
`turn_records` table, and forking a thread to continue a shared conversation."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from docsassistant.agent.budget import stopped_answer
from docsassistant.agent.checkpointing import config_for, get_checkpointer, get_graph
from docsassistant.agent.records import TurnRecord
from docsassistant.agent.turn_store import close_if_idle, copy_records, load_records
from docsassistant.config import Settings, get_settings
from docsassistant.conversations import get_conversation, touch_conversation


def load_turns(thread_id: str, *, settings: Settings | None = None) -> list[TurnRecord]:
    """The thread's turns, from the `turn_records` table (nothing is re-run); a turn left
    `running` by a process that died is closed as interrupted first."""
    records = load_records(thread_id, settings=settings)
    if any(r.status == "running" for r in records) and close_if_idle(thread_id, settings=settings):
        records = load_records(thread_id, settings=settings)
    return records or adopt_legacy_turns(thread_id, settings=settings)


def adopt_legacy_turns(thread_id: str, *, settings: Settings | None = None) -> list[TurnRecord]:
    """Move the turns a thread kept in its checkpoint before `turn_records` existed (the
    old `turns` channel) into the table, once; returns them (none for other threads)."""
    settings = settings or get_settings()
    saved = get_checkpointer(settings).get_tuple(config_for(thread_id, settings))
    legacy = saved.checkpoint["channel_values"].get("turns") if saved else None
    if (
        not legacy
        or get_conversation(thread_id, settings=settings) is None
        or load_records(thread_id, settings=settings)
    ):
        return []
    records = [TurnRecord.model_validate(t) for t in legacy]
    copy_records(thread_id, records, settings=settings)
    return load_records(thread_id, settings=settings)


def fork_thread(turns: Sequence[TurnRecord | dict[str, Any]], *, settings: Settings | None = None) -> str:
    """A new thread whose history is `turns` (used to continue a shared conversation)."""
    settings = settings or get_settings()
    records = [TurnRecord.model_validate(t) for t in turns]
    if not records:
        raise ValueError("There is nothing to continue: the conversation has no turns.")
    thread_id = uuid.uuid4().hex
    messages: list[Any] = []
    for turn in records:
        answer = AIMessage(turn.answer) if turn.status == "completed" else stopped_answer(turn.answer)
        messages += [HumanMessage(turn.question), answer]
    touch_conversation(thread_id, f"(continued) {records[0].question}", settings=settings)
    copy_records(thread_id, records, settings=settings)
    get_graph(settings).update_state(
        config_for(thread_id, settings), {"messages": messages}, as_node="finalize"
    )
    return thread_id
