"""One setting on two pages with two figures (checks/setting_pages.py)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.setting_pages import settings_of_another_page

AGENT = {
    "n": 1,
    "source_path": "retention.md",
    "content": "| setting | default | description |\n|---|---|---|\n"
    "| `retention.keep_weekly` | 4 | keep the last snapshot of each of the last N weeks |",
}
VAULT = {
    "n": 2,
    "source_path": "vault-server.md",
    "content": "| setting | default | description |\n|---|---|---|\n"
    "| `retention.keep_weekly` | 8 | weekly snapshots the Vault keeps when it prunes |",
}
VAULT_ASKED = "How many weekly snapshots does the Vault keep when it prunes?"


@pytest.mark.parametrize(
    ("answer", "cited", "question", "found"),
    [
        ("It keeps 4 weekly snapshots (`retention.keep_weekly`) [1].", AGENT, VAULT_ASKED, True),  # QA 14 w28
        ("It keeps 8 weekly snapshots (`retention.keep_weekly`) [2].", VAULT, VAULT_ASKED, False),
        (
            "It keeps 4 weekly snapshots (`retention.keep_weekly`) [1].",
            AGENT,
            "How many weeks does the agent keep the last snapshot of?",
            False,
        ),
        # A question worded like neither line does not decide between them.
        ("`retention.keep_weekly` is 4 [1].", AGENT, "What is retention.keep_weekly?", False),
    ],
    ids=["other-page-asked", "asked-page", "own-page-asked", "neither"],
)
def test_a_setting_given_from_the_page_the_question_is_not_about_is_found(
    answer: str, cited: dict, question: str, found: bool
) -> None:
    flagged = settings_of_another_page(answer, [cited], [AGENT, VAULT], question)
    assert bool(flagged) is found, flagged
    if found:
        assert "vault-server.md" in flagged[0] and "as 8" in flagged[0]


def test_a_page_the_answer_cites_elsewhere_is_no_rival() -> None:
    """Blind QA round 16 r02: the settings table's 8 GiB default, and the release note's
    "raised from 1 TiB to 2 TiB", which the answer cites in its next sentence."""
    table = {
        "n": 2,
        "source_path": "relay-configuration.md",
        "content": "| Setting | Default | Allowed range | Description |\n|---|---|---|---|\n"
        "| `buffer.disk.max_size` | 8 GiB | 1 GiB - 2 TiB | Total size across all sink queues. |",
    }
    notes = {
        "n": 4,
        "source_path": "release-notes.md",
        "content": "- The maximum `buffer.disk.max_size` on the Relay is raised from 1 TiB to 2 TiB.",
    }
    answer = (
        "The Relay's buffer (`buffer.disk.max_size`) is 8 GiB out of the box and is shared by all sink "
        "queues; you can raise it to 2 TiB [2]. That 2 TiB ceiling is new in 5.2 - before, it was 1 TiB [4]."
    )
    question = "How big is the Relay's disk buffer by default, and how far can I raise it?"
    assert settings_of_another_page(answer, [table, notes], [table, notes], question) == []
