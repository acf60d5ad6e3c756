"""Steps given in the opposite order to their source's (checks/step_order.py)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.step_order import reordered_steps, source_order

PRUNE = (
    "Snapshots past the retention policy are removed in two steps. Run `keel forget` first "
    "and `keel prune` afterwards: forget drops the snapshot records, prune frees their chunks."
)
INSTALL = (
    "# Install the agent\n\n1. Register the agent with `keel register --vault URL`.\n"
    "2. Create the repository with `keel init`.\n3. Start the service with `keel service start`.\n"
)


def test_a_numbered_list_and_a_first_then_sentence_order_their_code() -> None:
    assert ("keel register --vault url", "keel init") in source_order(INSTALL)
    assert ("keel init", "keel service start") in source_order(INSTALL)
    assert source_order(PRUNE) == {("keel forget", "keel prune")}


@pytest.mark.parametrize(
    ("answer", "sources", "found"),
    [
        (  # QA round 14 w33
            "Run `keel prune` first to free the space, then run `keel forget` [1].",
            [PRUNE],
            ["Run `keel prune` first to free the space, then run `keel forget`."],
        ),
        ("Run `keel forget` first, then `keel prune` [1].", [PRUNE], []),
        (  # QA round 14 w34
            "1. Run `keel init`.\n2. Register with `keel register --vault URL` [1].\n",
            [INSTALL],
            ["Run `keel init`."],
        ),
        ("1. Run `keel register --vault URL`.\n2. Run `keel init` [1].\n", [INSTALL], []),
        # "Before"/"after" name the steps in the opposite order to the one they give.
        ("Before `keel prune`, run `keel forget` [1].", [PRUNE], []),
        # A condition, not a sequence: "if `a` …, then `b` …".
        ("If `keel prune` fails, then `keel forget` still ran [1].", [PRUNE], []),
        # Blind QA round 17 (w21): "…, and then" after an "unless", and "After that" opening
        # the next sentence, still give an order.
        (
            "Register unless you run it locally, and then start it with `keel service start` [1]. "
            "After that, create the repository with `keel init` [1].",
            [INSTALL],
            ["Register unless you run it locally, and then start it with `keel service start`."],
        ),
        # Sources that order the pair both ways say nothing about it.
        (
            "Run `keel prune` first, then `keel forget` [1].",
            [PRUNE, "Run `keel prune` first, then `keel forget`."],
            [],
        ),
    ],
    ids=[
        "reversed-sentence",
        "same-order",
        "reversed-list",
        "same-list",
        "before",
        "condition",
        "and-then-after-that",
        "both-ways",
    ],
)
def test_steps_in_the_opposite_order_to_every_source_are_found(
    answer: str, sources: list[str], found: list[str]
) -> None:
    assert reordered_steps(answer, [{"content": s} for s in sources]) == found
