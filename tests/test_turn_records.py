"""Typed turn records in their own table, checkpoints that stay small, retention, and
questions checked at the door. Real graph, real ChatOllama over HTTP to the fake Ollama,
real embedded PostgreSQL."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from fake_ollama import FakeOllama
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from turn_fixtures import QUESTIONS, checkpoint_rows, index_small_corpus, thread_storage
from typer.testing import CliRunner

from docsassistant.agent.records import SCHEMA_VERSION, TurnRecord
from docsassistant.agent.runner import config_for, get_checkpointer, load_turns, run_turn, stream_turn
from docsassistant.cli import app
from docsassistant.config import get_settings
from docsassistant.conversations import (
    ConversationNotFound,
    delete_conversation,
    get_conversation,
    prune_conversations,
    touch_conversation,
)
from docsassistant.inputs import InputError
from docsassistant.sharing import create_share, get_share

cli = CliRunner()

# A turn as the old `turns` checkpoint channel and version-1 share snapshots held it.
OLD_TURN = {
    "question": "Old question?",
    "answer": "Old answer [1].",
    "citations": [{"n": 1, "source_path": "old.md", "section": "", "content": "text", "suspicious": False}],
    "sources": [{"n": 1, "source_path": "old.md", "section": "", "content": "text", "suspicious": False}],
    "verification": {"status": "grounded", "claims": [{"claim": "Old", "supported": True, "sources": [1]}]},
    "flags": [{"type": "flag", "kind": "grounded", "message": "ok", "at": 1.0}],
    "trace": [{"type": "flag", "kind": "grounded", "message": "ok", "at": 1.0}],
    "queries": ["old"],
    "model_calls": 4,
    "prompt_tokens": 10,
    "stop_reason": None,
    "started_at": 1.0,
    "duration_ms": 5.0,
}


@pytest.fixture
def corpus(clean_db, tmp_path: Path) -> Path:
    index_small_corpus(tmp_path)
    return tmp_path


def rows_of(engine: sa.Engine, thread_id: str) -> list[dict]:
    with engine.connect() as conn:
        return [
            dict(r)
            for r in conn.execute(
                sa.text(
                    "SELECT turn_index, status, question, stop_reason, schema_version FROM turn_records "
                    "WHERE thread_id = :t ORDER BY turn_index"
                ),
                {"t": thread_id},
            ).mappings()
        ]


def test_the_question_is_saved_when_the_turn_starts_and_completed_at_its_end(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    question, phrase = QUESTIONS["cache.md"]
    events = stream_turn(question)
    first = next(events)  # the graph has started: the question is already stored
    assert first["type"] == "node_start"
    with engine.connect() as conn:
        running = conn.execute(
            sa.text("SELECT thread_id, status, question FROM turn_records WHERE question = :q"),
            {"q": question},
        ).one()
    assert running.status == "running"
    *_, done = events
    record = done["record"]
    assert isinstance(record, TurnRecord) and record.status == "completed"
    assert record.thread_id == running.thread_id and record.index == 0
    assert phrase in record.answer and record.citations and record.schema_version == SCHEMA_VERSION
    assert record.timings["generate"] > 0 and record.duration_ms > 0
    assert [f.kind for f in record.flags] == [e.kind for e in record.trace if e.type == "flag"]
    assert rows_of(engine, record.thread_id) == [
        {
            "turn_index": 0,
            "status": "completed",
            "question": question,
            "stop_reason": None,
            "schema_version": 2,
        }
    ]
    assert load_turns(record.thread_id) == [record]


def test_a_turn_whose_process_died_reads_as_interrupted(clean_db, engine: sa.Engine) -> None:
    """A turn left `running` by a killed app read "still being answered. Reload the page"
    after restarts and reloads, until someone asked again in the thread (QA round 8b). While
    a turn really runs (it holds the thread's lock), it reads as running."""
    from docsassistant.agent.turn_lock import thread_turn_lock
    from docsassistant.agent.turn_store import start_turn
    from docsassistant.db import libpq_uri

    thread_id = uuid.uuid4().hex
    with thread_turn_lock(libpq_uri(get_settings()), thread_id):
        touch_conversation(thread_id, "What is the cache size?")
        start_turn(thread_id, "What is the cache size?", None)
        (running,) = load_turns(thread_id)
        assert running.status == "running"  # its turn holds the lock
    (left,) = load_turns(thread_id)  # the lock is gone with its session, as when a process dies
    assert left.status == "failed" and "interrupted" in left.stop_reason
    assert left.question == "What is the cache size?"


def test_checkpoints_keep_only_what_the_graph_resumes_from(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    thread_id = run_turn(QUESTIONS["retries.md"][0]).thread_id
    for name in ("timeouts.md", "auth.md"):
        run_turn(QUESTIONS[name][0], thread_id)
    saved = get_checkpointer().get_tuple(config_for(thread_id, get_settings()))
    assert "turns" not in saved.checkpoint["channel_values"]
    assert len(saved.checkpoint["channel_values"]["messages"]) == 6  # three questions, three answers
    assert checkpoint_rows(engine, thread_id) == 1  # older checkpoints are pruned after each turn
    assert [t.index for t in load_turns(thread_id)] == [0, 1, 2]


def test_storage_per_turn_stays_constant_as_a_thread_grows(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    """Target (issue 7): a 30-turn thread takes ≤ 30 × the 1-turn size + 10 %."""
    questions = [q for q, _ in QUESTIONS.values()]
    thread_id = None
    sizes: dict[int, int] = {}
    for n in range(1, 31):
        thread_id = run_turn(questions[(n - 1) % len(questions)], thread_id).thread_id
        if n in (1, 10, 30):
            by_table = thread_storage(engine, thread_id)
            sizes[n] = sum(by_table.values())
            print(f"storage after {n} turns: {sizes[n]} bytes ({sizes[n] / n:.0f} per turn) {by_table}")
    assert sizes[30] <= 30 * sizes[1] * 1.10
    assert sizes[10] <= 10 * sizes[1] * 1.10


def test_share_snapshots_carry_a_schema_version_and_old_ones_still_read(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    record = run_turn(QUESTIONS["auth.md"][0])
    share = get_share(create_share(record.thread_id))
    assert share["schema_version"] == SCHEMA_VERSION and share["turns"] == [record]
    # A snapshot made before the table existed: version-1 dicts, no version field.
    snapshot = {"thread_id": "old", "title": "Old", "turns": [OLD_TURN]}
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO share_links (token, thread_id, title, snapshot) "
                "VALUES ('old-token', 'old', 'Old', CAST(:s AS jsonb))"
            ),
            {"s": json.dumps(snapshot)},
        )
    old = get_share("old-token")
    assert old["schema_version"] == 1
    (turn,) = old["turns"]
    assert turn.answer == "Old answer [1]." and turn.flags[0].kind == "grounded"
    assert turn.verification.claims[0].supported and turn.citations[0].source_path == "old.md"


def test_deleting_a_conversation_removes_its_turns_and_checkpoints_but_not_share_links(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    record = run_turn(QUESTIONS["logging.md"][0])
    token = create_share(record.thread_id)
    keep = run_turn(QUESTIONS["cache.md"][0])
    delete_conversation(record.thread_id)
    assert load_turns(record.thread_id) == [] and get_conversation(record.thread_id) is None
    assert checkpoint_rows(engine, record.thread_id) == 0
    assert get_share(token)["turns"][0].answer == record.answer  # a snapshot is a copy
    assert len(load_turns(keep.thread_id)) == 1  # other conversations are untouched
    with pytest.raises(ConversationNotFound, match="conversations list"):
        delete_conversation(record.thread_id)


def test_cli_deletes_and_prunes_conversations(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    old = run_turn(QUESTIONS["retries.md"][0])
    recent = run_turn(QUESTIONS["timeouts.md"][0])
    gone = run_turn(QUESTIONS["auth.md"][0])
    with engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE conversations SET updated_at = now() - interval '100 days' WHERE thread_id = :t"),
            {"t": old.thread_id},
        )
    dry = cli.invoke(app, ["conversations", "prune", "--older-than", "90d", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "Would delete 1 conversation" in dry.output and old.thread_id in dry.output
    assert len(load_turns(old.thread_id)) == 1
    pruned = cli.invoke(app, ["conversations", "prune", "--older-than", "90d"])
    assert pruned.exit_code == 0 and "Deleted 1 conversation" in pruned.output
    assert load_turns(old.thread_id) == [] and checkpoint_rows(engine, old.thread_id) == 0
    assert len(load_turns(recent.thread_id)) == 1
    assert prune_conversations(timedelta(days=90)) == []  # nothing left that old

    deleted = cli.invoke(app, ["conversations", "delete", gone.thread_id])
    assert deleted.exit_code == 0 and load_turns(gone.thread_id) == []
    missing = cli.invoke(app, ["conversations", "delete", gone.thread_id])
    assert missing.exit_code == 1 and "No conversation has the id" in missing.output
    bad_age = cli.invoke(app, ["conversations", "prune", "--older-than", "ninety"])
    assert bad_age.exit_code != 0 and "e.g. 90d" in bad_age.output


@pytest.mark.parametrize(
    ("question", "message"),
    [("\x00\x00  ", "The question is empty"), ("why? " * 1000, "the limit is 4,000")],
)
def test_bad_questions_are_refused_at_every_door_and_nothing_is_stored(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine, question: str, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        run_turn(question, "door-runner")
    result = cli.invoke(app, ["ask", question, "--thread", "door-cli"])
    assert result.exit_code == 1 and message in result.output
    assert cooperative_ollama.requests == []
    assert load_turns("door-runner") == load_turns("door-cli") == []
    assert get_conversation("door-runner") is None and get_conversation("door-cli") is None


def test_nul_inside_a_question_is_removed_not_stored(corpus: Path, cooperative_ollama: FakeOllama) -> None:
    record = run_turn("How long are log\x00 files kept?")
    assert record.question == "How long are log files kept?"
    assert load_turns(record.thread_id)[0].question == record.question


def test_turns_kept_in_an_old_checkpoint_move_into_the_table(
    corpus: Path, cooperative_ollama: FakeOllama, engine: sa.Engine
) -> None:
    thread_id = f"legacy-{uuid.uuid4().hex}"
    touch_conversation(thread_id, OLD_TURN["question"])
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {
        "turns": [OLD_TURN],
        "messages": [HumanMessage(OLD_TURN["question"]), AIMessage(OLD_TURN["answer"])],
    }
    versions = {"turns": "1", "messages": "1"}
    checkpoint["channel_versions"] = versions
    get_checkpointer().put(
        {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}},
        checkpoint,
        {"source": "update", "step": 1, "parents": {}},
        versions,
    )
    (turn,) = load_turns(thread_id)
    assert turn.answer == OLD_TURN["answer"] and turn.index == 0 and turn.flags[0].kind == "grounded"
    assert load_turns(thread_id) == [turn]  # moved once
    follow_up = run_turn(QUESTIONS["cache.md"][0], thread_id)
    assert follow_up.index == 1 and follow_up.status == "completed"
    assert [t.question for t in load_turns(thread_id)] == [OLD_TURN["question"], follow_up.question]
