"""One turn at a time per thread (a PostgreSQL advisory lock), nothing silently lost,
and parallel conversations that never see each other's turns."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fake_ollama import FakeOllama
from turn_fixtures import QUESTIONS, index_small_corpus

from docsassistant.agent.records import TurnRecord
from docsassistant.agent.runner import config_for, get_checkpointer, load_turns, run_turn
from docsassistant.agent.turn_lock import ThreadBusy, thread_turn_lock
from docsassistant.config import get_settings
from docsassistant.db import libpq_uri


@pytest.fixture
def corpus(clean_db, tmp_path: Path) -> Path:
    index_small_corpus(tmp_path)
    return tmp_path


def messages_of(thread_id: str) -> list[str]:
    saved = get_checkpointer().get_tuple(config_for(thread_id, get_settings()))
    return [m.content for m in saved.checkpoint["channel_values"]["messages"]]


def test_a_second_turn_on_a_busy_thread_is_refused_with_a_clear_message(
    corpus: Path, cooperative_ollama: FakeOllama
) -> None:
    thread_id = f"busy-{uuid.uuid4().hex}"
    question, phrase = QUESTIONS["cache.md"]
    # A turn of another process holds the thread.
    with (
        thread_turn_lock(libpq_uri(), thread_id),
        pytest.raises(ThreadBusy, match="still being answered in this conversation"),
    ):
        run_turn(question, thread_id, busy_wait_s=0.3)
    assert (
        cooperative_ollama.requests == [] and load_turns(thread_id) == []
    )  # nothing ran, nothing half-stored
    assert phrase in run_turn(question, thread_id).answer  # free again: the turn runs


def test_two_turns_on_one_thread_at_once_one_waits_and_none_is_lost(corpus: Path) -> None:
    """Both callers are told the truth: two records, both in the model's history."""
    thread_id = f"pair-{uuid.uuid4().hex}"
    (q1, p1), (q2, p2) = QUESTIONS["retries.md"], QUESTIONS["auth.md"]
    results: dict[str, TurnRecord | Exception] = {}
    started = threading.Barrier(2)

    def ask(question: str) -> None:
        started.wait()
        try:
            results[question] = run_turn(question, thread_id, busy_wait_s=60)
        except Exception as exc:  # reported by the assertions below
            results[question] = exc

    with FakeOllama(mode="deterministic", delay_s=0.02) as slow, pytest.MonkeyPatch.context() as mp:
        mp.setenv("OLLAMA_HOST", slow.url)
        get_settings.cache_clear()
        workers = [threading.Thread(target=ask, args=(q,)) for q in (q1, q2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=120)
    get_settings.cache_clear()
    assert all(isinstance(r, TurnRecord) and r.status == "completed" for r in results.values()), results
    turns = load_turns(thread_id)
    assert sorted(t.question for t in turns) == sorted([q1, q2]) and [t.index for t in turns] == [0, 1]
    history = messages_of(thread_id)
    assert len(history) == 4 and set(history[0::2]) == {q1, q2}  # one checkpoint line, no lost sibling
    answers = {t.question: t.answer for t in turns}
    assert p1 in answers[q1] and p2 in answers[q2]


def test_a_refused_second_turn_loses_nothing(corpus: Path) -> None:
    thread_id = f"refused-{uuid.uuid4().hex}"
    (q1, p1), (q2, _) = QUESTIONS["logging.md"], QUESTIONS["timeouts.md"]
    with FakeOllama(mode="deterministic", delay_s=0.2) as slow, pytest.MonkeyPatch.context() as mp:
        mp.setenv("OLLAMA_HOST", slow.url)
        get_settings.cache_clear()
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(run_turn, q1, thread_id)
            while not slow.requests:  # the first turn holds the thread
                threading.Event().wait(0.02)
            with pytest.raises(ThreadBusy):
                run_turn(q2, thread_id, busy_wait_s=0.2)
            record = first.result(timeout=120)
    get_settings.cache_clear()
    assert record.status == "completed" and p1 in record.answer
    assert [t.question for t in load_turns(thread_id)] == [q1]  # the refused one was never stored


def test_twenty_conversations_in_parallel_do_not_cross_talk(
    corpus: Path, cooperative_ollama: FakeOllama
) -> None:
    jobs = [
        (f"par-{i}-{uuid.uuid4().hex[:8]}", *list(QUESTIONS.values())[i % len(QUESTIONS)]) for i in range(20)
    ]

    def converse(thread_id: str, question: str, phrase: str) -> TurnRecord:
        return run_turn(question, thread_id, busy_wait_s=30)

    with ThreadPoolExecutor(max_workers=20) as pool:
        records = list(pool.map(lambda job: converse(*job), jobs))
    for (thread_id, question, phrase), record in zip(jobs, records, strict=True):
        assert record.thread_id == thread_id and record.status == "completed", record.stop_reason
        assert phrase in record.answer, (question, record.answer)
        (stored,) = load_turns(thread_id)
        assert stored.question == question and stored.answer == record.answer
        assert messages_of(thread_id) == [question, record.answer]


def test_checkpointer_setup_in_parallel_never_fails(clean_db) -> None:
    """Found by an independent QA pass: four `ask` processes on a fresh store set up the
    checkpoint tables at once and one died (UniqueViolation on checkpoint_migrations), its
    turn lost. Six connections (as six processes would have) now set up at the same moment;
    without the lock this failed in each of 3 runs."""
    import sqlalchemy as sa
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from docsassistant.agent.checkpointing import setup_checkpointer
    from docsassistant.db import libpq_uri

    with clean_db.begin() as conn:
        for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"):
            conn.execute(sa.text(f"DROP TABLE IF EXISTS {table}"))
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def set_up() -> None:
        kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
        with ConnectionPool(libpq_uri(), min_size=2, max_size=2, kwargs=kwargs, open=True) as pool:
            saver = PostgresSaver(pool)
            barrier.wait()
            try:
                setup_checkpointer(saver, pool)
            except BaseException as exc:  # collected for the assertion
                errors.append(exc)

    threads = [threading.Thread(target=set_up) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT to_regclass('checkpoint_writes')")).scalar()


def test_deleting_a_conversation_whose_turn_runs_says_why_it_waits(clean_db) -> None:
    """The refusal quoted the turn lock's words, "… then ask again", to someone who had
    asked nothing (QA round 8b)."""
    from docsassistant.conversations import delete_conversation, get_conversation, touch_conversation
    from docsassistant.db import libpq_uri

    thread_id = uuid.uuid4().hex
    touch_conversation(thread_id, "What is the cache size?")
    running = thread_turn_lock(libpq_uri(get_settings()), thread_id)  # a turn holds the thread
    with running, pytest.raises(ThreadBusy, match="delete it once the answer is in"):
        delete_conversation(thread_id)
    assert get_conversation(thread_id)  # kept
