"""The turn record contract: typed, tolerant of keys it does not name, readable like the
dicts it replaced."""

from __future__ import annotations

import pytest

from docsassistant.agent.nodes.finalize import turn_record
from docsassistant.agent.records import SCHEMA_VERSION, Hit, TraceEvent, TurnRecord


def test_turn_record_is_built_from_the_state_in_one_place() -> None:
    trace = [
        {"type": "node_start", "node": "decide", "at": 1.0},
        {"type": "tool_result", "node": "retrieve", "hits": [{"source_path": "a.md", "score": 0.5}]},
        {"type": "node_end", "node": "decide", "ms": 12.5},
        {"type": "flag", "kind": "grounded", "message": "All 1 claim(s) are supported.", "at": 2.0},
        {"type": "node_end", "node": "decide", "ms": 2.5},
    ]
    state = {
        "question": "Why?",
        "standalone_question": "Why is the sky blue?",
        "answer": "Because [1].",
        "sources": [
            {"n": 1, "chunk_id": 3, "source_path": "a.md", "content": "text", "suspicious": ["role label"]}
        ],
        "verification": {
            "status": "grounded",
            "claims": [{"claim": "Because", "supported": True, "sources": [1]}],
        },
        "trace": trace,
        "model_calls": 4,
    }
    record = turn_record(state, thread_id="t", index=2)
    assert record.schema_version == SCHEMA_VERSION and record.status == "completed"
    assert record.standalone_question == "Why is the sky blue?"
    assert [(f.kind, f.message) for f in record.flags] == [("grounded", "All 1 claim(s) are supported.")]
    assert record.timings == {"decide": 15.0}
    assert record.sources[0].suspicious == ["role label"]  # a key's shape is the node's to choose
    assert record.verification.claims[0]["sources"] == [1]  # keys the record does not name are kept
    assert TurnRecord.model_validate_json(record.model_dump_json()) == record


def test_records_read_like_the_dicts_they_replaced() -> None:
    event = TraceEvent.model_validate({"type": "tool_result", "hits": []})
    assert "hits" in event and "node" not in event and "reason" not in event
    assert event["type"] == "tool_result" and event.get("hits") == [] and event.get("reason", "-") == "-"
    with pytest.raises(KeyError):
        event["model_dump"]  # methods are not keys
    hit = Hit(source_path="a.md")
    assert hit["source_path"] == "a.md" and hit.get("score") is None


def test_a_record_needs_its_question_and_a_known_status() -> None:
    with pytest.raises(ValueError, match="question"):
        TurnRecord.model_validate({"answer": "no question"})
    with pytest.raises(ValueError, match="status"):
        TurnRecord(question="q", status="paused")
