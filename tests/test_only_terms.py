"""The "only" checks (checks/only_terms.py): a source's "x86_64 only" answered "x86_64 and
arm64" (blind QA round 17 w24), and a source's "Pro and Enterprise" answered "only Enterprise"
(blind QA round 19 w20)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.only_terms import narrowed_lists, widened_restrictions

PLATFORMS = {
    "n": 1,
    "content": "| Platform | Agent | Relay | Notes |\n|---|---|---|---|\n"
    "| Debian 12 | Supported | Supported | x86_64 and arm64 |\n"
    "| Fedora 40 | Supported | Supported | x86_64 only |\n",
}
RELAY = {
    "n": 1,
    "content": "Agents run on Linux, Windows or macOS. The relay server runs on Linux only.",
}


def test_a_term_widened_to_its_sibling_is_found() -> None:
    said = "Fedora 40 is supported on both x86_64 and arm64, for the agent and the relay [1]."
    assert widened_restrictions(said, [PLATFORMS]) == [said.replace(" [1]", "")]
    widened = "The relay server runs on Linux and Windows [1]."
    assert widened_restrictions(widened, [RELAY]) == [widened.replace(" [1]", "")]


def test_the_restriction_kept_or_another_subject_is_left_alone() -> None:
    for answer, source in [
        ("Fedora 40 is supported on x86_64 only [1].", PLATFORMS),
        ("Fedora 40 runs on x86_64 but not on arm64 [1].", PLATFORMS),
        ("Debian 12 is supported on x86_64 and arm64 [1].", PLATFORMS),
        ("Agents run on Linux and Windows [1].", RELAY),  # what the restriction is not about
        ("The relay server runs on Linux [1].", RELAY),
    ]:
        assert widened_restrictions(answer, [source]) == [], answer


DELAYED = {
    "content": "Delayed messages are available in the Pro and Enterprise editions and only on queue-mode "
    "topics. Producers can set a delay of up to 7 days."
}


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # Blind QA round 19 w20: the page's "Pro and Enterprise" narrowed to one edition.
        (
            "Delayed messages are available only in the Enterprise edition, and only on queue-mode topics [1].",
            True,
        ),
        ("Delayed messages are available only in Enterprise [1].", True),
        # Every listed edition named, or the page's own "only".
        ("Delayed messages are available only in the Pro and Enterprise editions [1].", False),
        ("Delayed messages work only on queue-mode topics, in Pro and Enterprise [1].", False),
        ("Only Pro and Enterprise have delayed messages [1].", False),
        # "only" about something the listing sentence is not about.
        ("Enterprise only adds the audit log [1].", False),
    ],
)
def test_a_list_narrowed_by_only_is_flagged(answer: str, flagged: bool) -> None:
    assert bool(narrowed_lists(answer, [DELAYED])) is flagged
