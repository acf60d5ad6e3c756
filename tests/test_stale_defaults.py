"""The stale-default check (`agent/checks/stale_defaults.py`): a setting's old default, which a
source's change note retired, given as its default."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.stale_defaults import default_changes, stale_defaults

NOTES = {
    "content": "## 5.3\n\nChanged defaults:\n\n"
    "- `upload_streams` in `[upload]` now defaults to 4 (was 2).\n"
    "- `compression` now defaults to `zstd` at level 3 (was `lz4`).\n"
    "- `session_timeout` changed from 10 s to 45 s.\n"
    "- `speed` changed from `float` to `double`. In 5.4 `speed` changed from `double` to `float`."
}


def test_change_notes_are_read() -> None:
    assert default_changes(NOTES["content"])[:3] == [
        ("upload_streams", "2", "4"),
        ("compression", "lz4", "zstd"),
        ("session_timeout", "10", "45"),
    ]


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # Blind QA round 20 w28: the retired default given as current.
        ("In 5.3, `upload_streams` in `[upload]` defaults to 2 [1].", True),
        ("By default `compression` is `lz4` [1].", True),
        ("Out of the box the session_timeout is ten seconds [1].", True),
        ("`upload_streams` defaults to 4 [1].", False),
        ("`upload_streams` now defaults to 4; it was 2 before 5.3 [1].", False),  # the past, said as past
        ("`upload_streams` used to default to 2 [1].", False),
        ("You can set `upload_streams` to 2 on a slow link [1].", False),  # no default said
        ("By default `speed` is `float` [1].", False),  # a later note made it current again
    ],
)
def test_an_old_default_given_as_current_is_flagged(answer: str, flagged: bool) -> None:
    assert bool(stale_defaults(answer, [NOTES])) is flagged


def test_a_default_sentence_speaks_of_the_setting_its_neighbour_names() -> None:
    """Blind QA round 20 w27: "By default, `vkd` runs one job at a time. You can raise
    `max_concurrent_jobs` to as many as 8.", the notes saying "now defaults to 2 (was 1)"."""
    notes = {"content": "- `max_concurrent_jobs` in `[agent]` now defaults to 2 (was 1)."}
    answer = (
        "By default, `vkd` runs one backup job at a time [1]. You can raise `max_concurrent_jobs` to 8 [1]."
    )
    assert stale_defaults(answer, [notes]) == ["By default, `vkd` runs one backup job at a time."]
    assert stale_defaults(answer.replace("one backup job", "two backup jobs"), [notes]) == []
