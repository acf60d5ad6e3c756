"""The asked-identifier check (agent/checks/asked_identifiers.py) on its own: pure functions."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.asked_identifiers import identifiers, other_identifier

READYZ = "What does the /readyz endpoint check?"


def test_names_are_read_by_kind() -> None:
    text = (
        "Call `GET /v1/jobs` or https://host:7400/healthz, pass --ttl, set QUILL_TOKEN and "
        "worker.concurrency in server.yaml, e.g. max_runs."
    )
    assert identifiers(text) == {
        "path": {"/v1/jobs", "/healthz"},
        "option": {"--ttl"},
        "variable": {"quill_token"},
        "setting": {"worker.concurrency", "max_runs"},
    }


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # blind QA round 15 w25: the liveness endpoint's sentence for the readiness one
        (READYZ, "`GET /healthz` on the API port returns 200 when the server can reach its database [1]."),
        ("What does --dry-run print?", "With `--verbose` every step is printed [1]."),
        ("Which token does QUILL_TOKEN hold?", "`QUILL_ADMIN_TOKEN` holds the admin token [1]."),
    ],
)
def test_another_identifier_of_the_kind_asked_is_flagged(question: str, answer: str) -> None:
    assert other_identifier(answer, question)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (READYZ, "`/readyz` returns 200 once the schema version matches the server's [1]."),
        (READYZ, "Unlike `/healthz`, `/readyz` also waits for the schema migration [1]."),
        (READYZ, "It returns 200 once the schema version matches the server version [1]."),
        (READYZ, "The documentation does not describe /readyz; it only documents `/healthz`."),
        ("What replaced the --index-type flag?", "Use `--index` instead [1]."),
        ("What is the difference between /healthz and /readyz?", "`/healthz` checks the database [1]."),
        # another setting is named in passing: settings are not judged (see the module)
        ("What happens past worker.max_output?", "The record gets the `output_truncated` marker [1]."),
        ("What does --ttl-days do?", "`--ttl-days 30` makes the token expire after 30 days [1]."),
        ("How do I deploy the server?", "Run `quillctl deploy --wait` [1]."),
    ],
)
def test_the_asked_identifier_named_or_no_rival_is_not_flagged(question: str, answer: str) -> None:
    assert other_identifier(answer, question) == []
