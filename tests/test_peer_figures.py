"""The peer-figure check (agent/checks/peer_figures.py) on its own: pure functions."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.peer_figures import peer_figures, placed_sentences

METRICS = {
    "n": 1,
    "content": "The server exposes Prometheus metrics at `http://HOST:7401/metrics` by default. The "
    "worker's metrics endpoint is disabled by default; set `worker.metrics_listen`, usually to "
    "`0.0.0.0:7402`, to enable it.",
}
REQUIREMENTS = {
    "n": 1,
    "content": "- **Server**: PostgreSQL 14 or later (15 recommended).\n- **Worker**: at least 512 MB of RAM.",
}
TABLE = {
    "n": 1,
    "content": "| part | memory |\n|---|---|\n| Server | 2 GB |\n| Worker | 512 MB |",
}


def test_parts_are_read_from_labels_rows_and_subjects_not_header_rows() -> None:
    assert [p[1:] for p in placed_sentences(REQUIREMENTS["content"])] == [
        ("label", "server", "server"),
        ("label", "worker", "worker"),
    ]
    assert [p[1] for p in placed_sentences(TABLE["content"])] == ["", "", "row", "row"]
    assert [p[3] for p in placed_sentences("The default is 30 s. The worker's port is 7402.")] == [
        "",
        "worker",
    ]


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        # blind QA round 15 w09: the server's port in a URL, given for the worker
        (
            "Which port does the worker expose metrics on?",
            "The worker exposes metrics at `http://HOST:7401/metrics` [1].",
            METRICS,
        ),
        # w26: "it" being the worker, the server's line answered
        (
            "Which PostgreSQL version does the worker need?",
            "It needs PostgreSQL 14 or later [1].",
            REQUIREMENTS,
        ),
        ("How much memory does the worker need?", "It needs 2 GB [1].", TABLE),
    ],
)
def test_a_figure_of_the_asked_parts_peer_is_flagged(question: str, answer: str, source: dict) -> None:
    assert peer_figures(answer, question, [source])


@pytest.mark.parametrize(
    ("question", "answer", "source"),
    [
        ("Which port does the server expose metrics on?", "The server exposes metrics on 7401 [1].", METRICS),
        (
            "Which port does the worker expose metrics on?",
            "Usually 7402, once `worker.metrics_listen` is set [1].",
            METRICS,
        ),
        # the answer names the part the figure belongs to: it says whose figure it is
        (
            "Which port does the worker use?",
            "The worker has none by default; the server's is 7401 [1].",
            METRICS,
        ),
        ("How much memory does the worker need?", "At least 512 MB [1].", TABLE),
        # both parts asked about
        (
            "Do the server and the worker need PostgreSQL 14?",
            "The server needs PostgreSQL 14 or later [1].",
            REQUIREMENTS,
        ),
        # no part of the question has a place on the page
        ("Which PostgreSQL version is needed?", "PostgreSQL 14 or later [1].", REQUIREMENTS),
        # a value's subject ("The default …") is no part
        (
            "What is the timeout?",
            "30 seconds [1].",
            {"n": 1, "content": "The timeout is set per request. The default is 30 seconds."},
        ),
    ],
)
def test_the_asked_parts_own_figure_or_no_peer_is_not_flagged(
    question: str, answer: str, source: dict
) -> None:
    assert peer_figures(answer, question, [source]) == []
