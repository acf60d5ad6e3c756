"""The widened-"only" check (checks/only_terms.py): a source's "x86_64 only" answered "x86_64
and arm64" (blind QA round 17 w24)."""

from __future__ import annotations

from docsassistant.agent.checks.only_terms import widened_restrictions

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
