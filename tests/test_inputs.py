"""Input checks shared by every door (UI, CLI, MCP)."""

from __future__ import annotations

import pytest

from docsassistant.inputs import MAX_QUESTION_CHARS, InputError, clean_question, clean_text, strip_controls


def test_nul_control_and_bidi_characters_are_removed() -> None:
    assert strip_controls("a\x00b\x07c\u202ed\tok\n") == "abcd\tok\n"


def test_empty_question_is_refused() -> None:
    with pytest.raises(InputError, match="question is empty"):
        clean_question(" \x00 ")


def test_over_long_question_is_refused_with_the_limit() -> None:
    with pytest.raises(InputError, match=f"{MAX_QUESTION_CHARS:,}"):
        clean_question("x" * (MAX_QUESTION_CHARS + 1))


def test_optional_text_may_be_empty() -> None:
    assert clean_text(None, what="component", max_chars=64, required=False) == ""
