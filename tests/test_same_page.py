"""A cited page's other retrieved chunk backing a figure (checks/same_page.py)."""

from __future__ import annotations

from docsassistant.agent.checks.same_page import other_chunks, unbacked_on_the_page

NOTES_290 = {
    "n": 2,
    "source_path": "release-notes.md",
    "content": "## 2.9.0 (2023-08-15)\n\n- The maximum number of passphrases was raised from 4 to 8.\n"
    "- The `--password` option is deprecated.",
}
TOKENS = {
    "n": 3,
    "source_path": "access-control.md",
    "content": "## Tokens\n\nA token expires after 24 hours; admin tokens expire after 1 hour.",
}


def test_other_chunks_are_the_cited_pages_uncited_unmarked_ones() -> None:
    cited = [{"n": 1, "source_path": "release-notes.md", "content": "## 3.0.0"}]
    marked = {**NOTES_290, "n": 4, "suspicious": True}
    assert other_chunks(cited, [*cited, NOTES_290, TOKENS, marked]) == [NOTES_290]


def test_a_figure_the_page_gives_about_the_same_thing_is_backed() -> None:
    """QA round 14 r26: the § 2.9.0 heading speaks through its chunk ("deprecated")."""
    answer = "It was deprecated in 2.9.0 and removed in 3.0.0 [1]."
    assert unbacked_on_the_page(answer, ["2.9"], [NOTES_290]) == []


def test_a_figure_the_page_gives_about_something_else_is_not() -> None:
    """QA round 13 w33: the page's 24 hours is its token expiry, not the account lockout;
    "after" and "hours" place a figure and say nothing of what it is of."""
    answer = "After 5 failed sign-in attempts the account is locked for 24 hours [1]."
    assert unbacked_on_the_page(answer, ["24"], [TOKENS]) == ["24"]
    assert unbacked_on_the_page(answer, ["24"], []) == ["24"]


def test_a_section_title_speaks_through_its_chunk() -> None:
    """The indexer keeps a chunk's heading as its `section`, outside its text."""
    chunk = {
        **NOTES_290,
        "section": "2.9.0 (2023-08-15)",
        "content": "- The `--password` option is deprecated.",
    }
    assert unbacked_on_the_page("It was deprecated in 2.9.0 [1].", ["2.9"], [chunk]) == []
    assert unbacked_on_the_page("It was removed in 2.9.0 [1].", ["2.9"], [chunk]) == ["2.9"]
