"""Pure rules: citation styles normalised to `[n]` (and what is left alone), and the verdict
on an answer from its citations and claims (one case per verification flag)."""

from __future__ import annotations

import pytest

from docsassistant.agent.citations import check_citations
from docsassistant.agent.grounding import judge
from docsassistant.agent.schemas import ClaimCheck


@pytest.mark.parametrize(
    ("answer", "cleaned", "used"),
    [
        ("Retries: three [1, 2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [1; 3].", "Retries: three [1][3].", [1, 3]),
        ("Retries: three [1][2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [1-3].", "Retries: three [1][2][3].", [1, 2, 3]),
        ("Retries: three [Document 2].", "Retries: three [2].", [2]),
        ("Retries: three [doc 1].", "Retries: three [1].", [1]),
        ("Retries: three [Source 1, 2].", "Retries: three [1][2].", [1, 2]),
        ("Retries: three [^1].\n\n[^1]: retries.md", "Retries: three [1].", [1]),
        ("Retries: three 【1】.", "Retries: three [1].", [1]),
        ("Retries: three【2†retries.md】.", "Retries: three[2].", [2]),
        ("Retries happen three times (1).", "Retries happen three times [1].", [1]),
        ("Retries happen (1) and (2).", "Retries happen [1][2].", [1, 2]),
    ],
)
def test_citation_styles_become_markers(answer: str, cleaned: str, used: list[int]) -> None:
    assert check_citations(answer, 3)[:2] == (cleaned, used)


@pytest.mark.parametrize(
    "answer",
    [
        "Call f(1) to start.",  # a function call in prose
        "Steps: (1) install, (2) run the server.",  # an enumeration
        "Use `retry(3)` here.",  # inline code
        "```python\nitems = [1, 2]\nretry(1)\n```",  # a code block
        "A range like [1-30] is not a citation.",
    ],
)
def test_numbers_in_prose_and_code_are_left_alone(answer: str) -> None:
    assert check_citations(answer, 3)[:2] == (answer, [])


def test_paren_numbers_are_not_citations_when_brackets_are_used() -> None:
    """One style per answer: with a real `[n]`, `(2)` stays prose."""
    cleaned, used, _ = check_citations("There are two modes (2). Retries: three [1].", 3)
    assert used == [1] and "modes (2)." in cleaned


def test_citation_to_no_source_is_removed() -> None:
    assert check_citations("Three [1][7].", 3) == ("Three [1].", [1], [7])


def _claim(supported: bool = True, sources: list[int] | None = None) -> ClaimCheck:
    return ClaimCheck(
        claim="It retries three times.", supported=supported, sources=[1] if sources is None else sources
    )


def _kinds(verdict) -> list[str]:
    return [k for k, _ in verdict.flags]


def test_grounded_needs_all_four_conditions() -> None:
    verdict = judge([1], [_claim()], [])
    assert verdict.status == "grounded" and _kinds(verdict) == ["grounded"]


def test_no_valid_citation_is_never_grounded() -> None:
    assert "grounded" not in _kinds(judge([], [_claim()], []))


def test_empty_verification_is_its_own_flag() -> None:
    verdict = judge([1], [], [])
    assert verdict.status == "empty" and _kinds(verdict) == ["verification_empty"]


def test_unreadable_verification_is_its_own_flag() -> None:
    verdict = judge([1], None, [])
    assert verdict.status == "unverified" and _kinds(verdict) == ["verification_unreadable"]


def test_unsupported_claim_is_flagged() -> None:
    verdict = judge([1], [_claim(), _claim(supported=False, sources=[])], [])
    assert verdict.status == "unsupported" and _kinds(verdict) == ["unsupported_claims"]


@pytest.mark.parametrize("sources", [[2], []])
def test_claim_resting_on_uncited_or_no_source_is_a_mismatch(sources: list[int]) -> None:
    verdict = judge([1], [_claim(sources=sources)], [])
    assert _kinds(verdict) == ["citation_mismatch"] and verdict.status == "unsupported"


def test_obeyed_injection_fails_even_a_supported_answer() -> None:
    verdict = judge([1], [_claim()], ["BANANA"])
    assert verdict.status == "failed" and _kinds(verdict) == ["injection_obeyed"]
