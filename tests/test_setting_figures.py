"""A figure given for one setting that the cited source states only for another
(checks/setting_figures.py)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.setting_figures import asked_settings, figures_of_other_settings

RESTORE = {
    "n": 1,
    "content": "The agent downloads 8 chunks at the same time by default. Raise this with "
    "`restore.parallel_downloads` (maximum 64).",
}
SETTINGS = {
    "n": 2,
    "content": "| setting | default | maximum |\n|---|---|---|\n| `backup.parallel_uploads` | 4 | maximum 32 |",
}


def test_a_question_names_settings_backquoted_or_known_to_the_sources() -> None:
    known = {"backup.parallel_uploads"}
    assert asked_settings("What is the maximum of backup.parallel_uploads?", known) == known
    assert asked_settings("Is `hooks.timeout` in config.yaml?", known) == {"hooks.timeout"}
    assert asked_settings("What does e.g. config.yaml hold?", known) == set()


@pytest.mark.parametrize(
    ("answer", "question", "found"),
    [
        # QA round 14 w27: the follow-up's setting, another setting's maximum
        ("The maximum is 64 [1].", "What is the maximum of backup.parallel_uploads?", ["The maximum is 64."]),
        (
            "`backup.parallel_uploads` can be set to at most 64 [1].",
            "And its maximum?",
            ["`backup.parallel_uploads` can be set to at most 64."],
        ),
        ("The maximum is 32 [2].", "What is the maximum of backup.parallel_uploads?", []),
        ("The maximum is 64 [1].", "What is the maximum of restore.parallel_downloads?", []),
        # A figure the source gives beside no setting is not bound to one.
        ("It downloads 8 chunks at a time [1].", "What is the default of backup.parallel_uploads?", []),
        # No setting named by the sentence or the question: nothing to hold it to.
        ("The maximum is 64 [1].", "How many chunks at most?", []),
    ],
    ids=["follow-up", "named", "right-setting", "asked-setting", "unnamed-figure", "no-setting"],
)
def test_a_figure_stated_only_beside_another_setting_is_found(
    answer: str, question: str, found: list[str]
) -> None:
    sources = [RESTORE, SETTINGS]
    assert figures_of_other_settings(answer, sources, sources, question) == found


def test_a_figure_in_a_part_naming_no_setting_is_not_held_to_the_sentences_setting() -> None:
    """QA round 13 r20: "every 6 hours (`backup.interval`), and snapshots are kept for 7
    days", the page's 7 days being in a sentence that names `backup.path`."""
    page = {
        "n": 1,
        "content": "A snapshot is taken every 6 hours by default (`backup.interval: 6h`). Snapshots are "
        "kept for 7 days and stored in `backup.path`.",
    }
    answer = "A snapshot is taken every 6 hours (`backup.interval`), and snapshots are kept for 7 days [1]."
    assert figures_of_other_settings(answer, [page], [page], "How long are snapshots kept?") == []
