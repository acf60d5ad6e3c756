"""The comparison check (agent/checks/comparisons.py) on its own: pure functions, no model."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.comparisons import comparisons
from docsassistant.agent.checks.units import magnitudes

STREAM = {
    "n": 1,
    "content": "| setting | Nimbus Stream value |\n|---|---|\n| default replication factor | 2 |",
}
QUEUE = {"n": 2, "content": "- `replication.factor` (default 3, maximum 5): the copies of each partition."}
SCHEDULE = {"n": 1, "content": "| `schedule.jitter` | 10 minutes |\n| `hooks.timeout` | 5 minutes |"}
IVFFLAT = {
    "n": 1,
    "content": "An IVFFlat index divides vectors into lists. It has faster build times and uses less "
    "memory than HNSW, but has lower query performance.",
}


@pytest.mark.parametrize(
    ("answer", "sources"),
    [
        # no figure shown, and no cited page compares them (QA round 13 w13, round 14 w22)
        (
            "Yes. Nimbus Stream uses a higher default replication factor than Nimbus Queue [1][2].",
            [STREAM, QUEUE],
        ),
        ("No. The hook timeout is the longer of the two; the jitter is shorter [1].", [SCHEDULE]),
        # its own figures ordered against its word
        (
            "Nimbus Stream's default replication factor (2) is higher than Nimbus Queue's (3) [1][2].",
            [STREAM, QUEUE],
        ),
        ("The jitter (5 minutes) is longer than the hook timeout (10 minutes) [1].", [SCHEDULE]),
        ("The hook timeout of 10 minutes is shorter than the jitter, 300 seconds [1].", [SCHEDULE]),
    ],
)
def test_a_comparison_nothing_shows_or_its_own_figures_contradict_is_flagged(
    answer: str, sources: list[dict]
) -> None:
    assert comparisons(answer, sources)


@pytest.mark.parametrize(
    ("answer", "sources"),
    [
        # figures shown on both sides, the figure checks hold each to its page
        (
            "Nimbus Queue does: its default is 3 [2], while Nimbus Stream's default replication factor is 2 [1].",
            [STREAM, QUEUE],
        ),
        (
            "Nimbus Queue's default replication factor (3) is higher than Nimbus Stream's (2) [1][2].",
            [STREAM, QUEUE],
        ),
        ("The jitter (10 minutes) is longer than the hook timeout (300 seconds) [1].", [SCHEDULE]),
        # the cited page makes the comparison itself
        ("IVFFlat builds faster and uses less memory than HNSW [1].", [IVFFLAT]),
        # thresholds, not a second subject
        ("It retries 3 times when more than 10 requests fail [1].", [QUEUE]),
        ("Versions later than 2.4 keep 3 copies [1].", [QUEUE]),
        # no comparison at all
        ("Nimbus Stream keeps 2 copies by default [1].", [STREAM]),
    ],
)
def test_a_comparison_its_figures_or_its_source_back_is_not_flagged(answer: str, sources: list[dict]) -> None:
    assert comparisons(answer, sources) == []


def test_figures_are_ordered_in_their_kinds_base_unit() -> None:
    assert magnitudes("5 minutes, 300 s, 2 MiB, a bare 3, 100 requests per second, v2.4") == [
        ("time", 300.0),
        ("time", 300.0),
        ("size", 2097152.0),
        ("", 3.0),
        ("rate/s", 100.0),
    ]
