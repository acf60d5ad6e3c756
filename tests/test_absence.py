"""Condition 7: an answer saying the documentation lacks what a source states (pure function)."""

from __future__ import annotations

from docsassistant.agent.checks.absence import denied_coverage

BACKUPS = {
    "n": 1,
    "content": "Backups run nightly. Backups are kept for 14 days in the same region. "
    "The index does not include NULL values.",
}


def test_a_claimed_absence_that_a_source_states_is_found() -> None:
    for answer in (
        "The documentation does not say how long backups are kept.",
        "Backups run nightly [1], but the docs don't mention how long backups are kept.",
        "Backups run nightly [1]; the region where backups are kept is not mentioned.",
    ):
        assert denied_coverage(answer, [BACKUPS]), answer


def test_a_true_absence_or_a_statement_about_the_product_is_not() -> None:
    for answer in (
        "The documentation does not say whether backups are encrypted.",  # it does not
        "Backups run nightly [1]. It is not documented.",  # no topic to look for
        "The index does not include NULL values [1].",  # the product, not the docs
        "If the backup region is not specified, backups are kept in the same region [1].",
    ):
        assert denied_coverage(answer, [BACKUPS]) == [], answer


def test_text_removed_from_a_source_states_nothing() -> None:
    redacted = {**BACKUPS, "prompt_text": "Backups run nightly."}
    assert denied_coverage("The documentation does not say how long backups are kept.", [redacted]) == []


def test_the_models_own_search_spoken_of_claims_absence() -> None:
    """QA round 14 r18: "I couldn't find anything about IPv6 in the documentation" is a claim
    about the docs (judged against every source), not a statement its citation must back."""
    from docsassistant.agent.checks.absence import claims_absence

    assert claims_absence("I couldn't find anything about IPv6 in the documentation.")
    assert claims_absence("I found no mention of IPv6.")
    assert not claims_absence("If you cannot find the file, create it.")
    assert not claims_absence("We could not find a way to do it.")
