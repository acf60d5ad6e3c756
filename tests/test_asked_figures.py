"""The asked-figure check (agent/checks/asked_figures.py) on its own: pure functions."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.asked_figures import figure_not_given

LOCKED = "How long are immutable snapshots locked by default?"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # a true sentence answering another question (QA round 14 w25); "S3" is no figure
        (LOCKED, "Immutable snapshots need an S3 bucket with Object Lock enabled or a Vault [1]."),
        ("What is the default lock length?", "Set it with `retention.lock_days` [1]."),
        (
            "How many agents can register with the Vault?",
            "Agents register with `keel-vault agent register` [1].",
        ),
    ],
)
def test_a_figure_asked_for_and_none_given_is_flagged(question: str, answer: str) -> None:
    assert figure_not_given(answer, question)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (LOCKED, "They are locked for 30 days by default [1]."),
        (LOCKED, "Thirty days [1]."),
        ("What is the default lock length?", "```yaml\nretention:\n  lock_days: 30\n```"),
        ("How long are snapshots kept?", "Snapshots are kept until you delete them [1]."),
        ("How many agents can register?", "There is no limit in the Business edition [1]."),
        ("How long does an index build take?", "It depends on the number of vectors [1]."),
        (LOCKED, "The documentation does not say how long snapshots are locked."),
        ("What is the default timeout?", "This is not covered by the documentation."),
        ("What version added it?", "It was added in v3 [1]."),
        # not a question asking for a figure
        ("Does the Vault run on macOS?", "No, the Vault runs on Linux only [1]."),
    ],
)
def test_a_figure_given_or_its_absence_explained_is_not_flagged(question: str, answer: str) -> None:
    assert figure_not_given(answer, question) == []
