"""Statements asserting in other words what a source denies (agent/checks/negated_verbs.py)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.negated_verbs import denied_verbs_asserted

REGION = "The cluster region cannot be changed after the cluster is created. Choose it carefully."
PROXY = "Acme Proxy does not support WebSocket connections. It forwards plain HTTP requests."


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("You can modify the cluster region later [1].", REGION),  # QA round 11 s02
        ("You can edit the cluster region after the cluster is created [1].", REGION),
        ("Acme Proxy handles WebSocket connections [1].", PROXY),
        ("Acme Proxy accepts WebSocket connections from browsers [1].", PROXY),
    ],
)
def test_a_denied_verb_asserted_in_other_words_is_caught(answer: str, source: str) -> None:
    assert denied_verbs_asserted(answer, [source]) == [answer]


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("The cluster region is chosen when the cluster is created [1].", REGION),
        ("The cluster region cannot be modified later [1].", REGION),  # says the same
        ("Acme Proxy forwards plain HTTP requests [1].", PROXY),
        # A case of its own: the source says "after", the answer "before".
        ("You can change the cluster region before the cluster is created [1].", REGION),
    ],
)
def test_a_faithful_or_unrelated_statement_is_left_alone(answer: str, source: str) -> None:
    assert denied_verbs_asserted(answer, [source]) == []


def test_a_source_denying_only_in_some_case_is_not_contradicted() -> None:
    """ "cannot be used when …" denies one case; "can be used" overstates, it does not reverse."""
    source = "The cache cannot be used when replication is enabled."
    assert denied_verbs_asserted("You can employ the cache with this setup [1].", [source]) == []


def test_a_yes_to_a_question_in_other_words_states_the_question() -> None:
    question = "Can I edit the cluster region once the cluster is created?"
    assert denied_verbs_asserted(
        "Yes [1].", ["The cluster region cannot be changed once the cluster is created."], question
    ) == [question]
    assert denied_verbs_asserted("No, it is fixed [1].", [REGION], question) == []


DRAIN = (
    "When the timeout passes, the remaining runs are left running (they are not cancelled) and "
    "the command exits with code 3."
)


def test_a_statement_in_the_same_case_as_its_source_is_its_opposite() -> None:
    """QA round 15 w20: "terminated" in the very case where the source says "not cancelled"."""
    answer = (
        "When the timeout passes, the remaining runs are terminated and the command exits with code 3 [1]."
    )
    assert denied_verbs_asserted(answer, [DRAIN]) == [answer]
    # a case the source does not name stays alone
    other = "Unless the timeout passes, the remaining runs are terminated and the command exits [1]."
    assert denied_verbs_asserted(other, [DRAIN]) == []
