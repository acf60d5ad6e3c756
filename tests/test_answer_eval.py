"""`docsassistant eval answers` on the cooperative fake Ollama, the real agent and store."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import write
from typer.testing import CliRunner

from docsassistant.answer_eval import measure, summarise
from docsassistant.cli import app
from docsassistant.evaluation import QAQuestion
from docsassistant.ingest import index_paths

QA = [
    {
        "id": "s1",
        "type": "single",
        "component": "core",
        "question": "How often does the HTTP client retry failed requests?",
        "sources": ["core/retries.md"],
    },
    {
        "id": "s2",
        "type": "single",
        "component": "core",
        "question": "What is the default request timeout?",
        "sources": ["core/timeouts.md"],
    },
    {
        "id": "c1",
        "type": "count",
        "component": "core",
        "question": "How many chunks does the core component have?",
    },
    {
        "id": "u1",
        "type": "unanswerable",
        "component": "core",
        "question": "Which quantum flux capacitor is supported?",
    },
]


def test_eval_answers_reports_per_question_type(clean_db, cooperative_ollama, tmp_path: Path) -> None:
    write(
        tmp_path / "core" / "retries.md",
        "# Retries\n\nThe HTTP client retries failed requests three times.\n",
    )
    write(tmp_path / "core" / "timeouts.md", "# Timeouts\n\nThe default request timeout is thirty seconds.\n")
    index_paths([tmp_path / "core"], component="core", base=tmp_path)
    qa = write(tmp_path / "qa.jsonl", "\n".join(json.dumps(q) for q in QA))
    out = tmp_path / "answers.json"

    result = CliRunner().invoke(app, ["eval", "answers", "--qa", str(qa), "--json-out", str(out)])

    assert result.exit_code == 0, result.output
    assert "Per question type" in result.output
    report = json.loads(out.read_text())
    by_id = {r["id"]: r for r in report["results"]}
    assert by_id["s1"]["outcome"] == "answered" and by_id["s1"]["citation_valid"] is True
    assert by_id["s1"]["grounded"] and by_id["s1"]["model_calls"] == 4
    assert by_id["s1"]["prompt_tokens"] > 0 and by_id["s1"]["latency_s"] > 0
    assert by_id["c1"]["outcome"] == "counted"
    assert by_id["u1"]["outcome"] == "declined" and "no_relevant_docs" in by_id["u1"]["flags"]
    types = {t["type"]: t for t in report["by_type"]}
    assert types["single"]["questions"] == 2 and types["single"]["grounded_rate"] == 1.0
    assert types["single"]["citation_validity"] == 1.0
    assert types["unanswerable"]["outcomes"] == {"declined": 1}


def test_citation_outside_the_expected_sources_is_invalid() -> None:
    question = QAQuestion(id="q", question="?", type="single", sources=["core/retries.md"])
    record = {
        "citations": [{"n": 1, "source_path": "timeouts.md", "component": "core"}],
        "flags": [{"kind": "grounded"}],
        "model_calls": 4,
        "prompt_tokens": 900,
    }
    result = measure(question, record, 1.25)
    assert result.outcome == "answered" and result.citation_valid is False and result.expected_found is False
    (summary,) = summarise([result])
    assert summary.citation_validity == 0.0 and summary.grounded_rate == 1.0 and summary.latency_p50_s == 1.25


def test_a_missing_qa_file_fails_with_a_message(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "answers", "--qa", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 1 and "not found" in " ".join(result.output.split())
