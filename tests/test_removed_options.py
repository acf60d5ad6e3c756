"""The removed-option check (condition 7): an option a source says is removed or deprecated,
named by the answer as if current (QA round 13 w27)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.removed_options import removed_names, removed_options

BROKER = {
    "n": 1,
    "content": "`broker.listen_port` (default 5672): the port for client connections.\n"
    "`broker.legacy_port`: deprecated in 2.8 and removed in 3.0. Use `broker.listen_port` instead.",
}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("`broker.legacy_port`: deprecated in 2.8 and removed in 3.0.", {"broker.legacy_port"}),
        ("The `toolNames()` method has been removed from all chat options classes.", {"toolnames()"}),
        ("- Removed `utils` package (use top-level `pgvector` package instead)", {"utils"}),
        ("`OLD_KEY` and `OTHER_KEY` were renamed to `NEW_KEY`.", {"old_key", "other_key"}),
        ("The following members of `ModelOptionsUtils` have been removed.", set()),  # where, not what
        ("`retention.max_age` controls when messages are removed.", set()),  # not its subject
        ("`x` will be removed in 4.0.", set()),  # still current
        # Where it was, between the name and the removal (blind QA round 20 w21).
        ("The `plain_http` option of `[vault]` was removed.", {"plain_http"}),
        ("The `--fast` flag of `vellum backup` has been removed.", {"--fast"}),
        ("`x` is not deprecated.", set()),
    ],
)
def test_only_the_subject_of_a_removal_is_a_removed_name(text: str, names: set[str]) -> None:
    assert removed_names(text) == names


def test_a_removed_option_given_as_current_is_flagged() -> None:
    answer = "Set `broker.legacy_port` in nimbus.yaml to change the client port; it defaults to 5672 [1]."
    assert removed_options(answer, [BROKER]) == [
        "Set `broker.legacy_port` in nimbus.yaml to change the client port; it defaults to 5672."
    ]
    # The short name is the same option.
    assert removed_options("Set `legacy_port` to change it [1].", [BROKER])


@pytest.mark.parametrize(
    "answer",
    [
        "Set `broker.listen_port` to change the client port [1].",
        "Set `broker.listen_port` [1]; `broker.legacy_port` was removed in 3.0 [1].",
        "Use `broker.listen_port` instead of `broker.legacy_port` [1].",
        "Before version 3.0 you could set `broker.legacy_port` [1].",
        "Nothing about ports here [1].",
    ],
)
def test_an_answer_that_says_what_became_of_the_option_passes(answer: str) -> None:
    assert removed_options(answer, [BROKER]) == []


def test_the_removal_may_be_in_another_source() -> None:
    """Release notes say it, the configuration page does not: every source the writer saw counts."""
    config = {"n": 1, "content": "`broker.legacy_port` sets the legacy client port."}
    notes = {"n": 2, "content": "## 3.0\n\n- `broker.legacy_port` was removed."}
    assert removed_options("Set `broker.legacy_port` [1].", [config, notes])
    assert removed_options("Set `broker.legacy_port` [1].", [config]) == []


def test_a_removed_command_line_option_counts() -> None:
    """QA round 14 w29: "The `--password` command-line option was removed in 3.0"."""
    page = {"n": 1, "content": "The `--password` command-line option was removed in 3.0."}
    assert removed_names(page["content"]) == {"--password"}
    assert removed_options("Pass it with the `--password` option [1].", [page])
    assert removed_options("The `--password` option was removed in 3.0 [1].", [page]) == []


@pytest.mark.parametrize(
    "answer",
    [
        "Set `backup.legacy_chunker: true` in keel.yaml [1].",
        "Add `backup.legacy_chunker = true` to the file [1].",
    ],
)
def test_a_removed_option_given_with_its_value_counts(answer: str) -> None:
    """QA round 14 w30: the answer names the option with a value inside the code span."""
    notes = {
        "n": 1,
        "content": "## 3.0.0\n\n- Removed the `backup.legacy_chunker` setting (the fixed-size chunker).",
    }
    assert removed_options(answer, [notes])
    assert removed_options("Set `backup.chunker_mode: fixed` [1].", [notes]) == []
