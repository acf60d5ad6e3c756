"""Checks for text that comes in at any door (UI, CLI, MCP): questions, search queries,
component names. One place, so every door refuses the same inputs with the same words.

NUL and other control characters are removed rather than refused: PostgreSQL rejects NUL
in text (a raw `psycopg.DataError` otherwise) and the rest only hide text from a reader.
Length caps keep a pasted log from reaching PostgreSQL's parser (a 200 KB question
overflowed its stack depth) or the model's context.
"""

from __future__ import annotations

import re
import unicodedata

MAX_QUESTION_CHARS = 4000
MAX_QUERY_CHARS = 1000
MAX_COMPONENT_CHARS = 64

# C0/C1 controls except tab and newline, plus bidi overrides/isolates (they reorder how
# text is displayed, so a name or question can read differently from what it is).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class InputError(ValueError):
    """Input that cannot be used; the message says what to change."""


def strip_controls(text: str) -> str:
    """`text` without NUL, control and bidi-control characters (tab and newline stay)."""
    return _CONTROL.sub("", unicodedata.normalize("NFC", text))


_NAME_CONTROLS = re.compile(r"[\x00-\x1f\x7f]")


def strip_name_controls(name: str) -> str:
    """A file name without control or bidi-control characters, tab and newline included
    (a U+202E override makes `txt.md` display as `dm.txt`). Uploads and CLI paths alike."""
    return _NAME_CONTROLS.sub("", strip_controls(name))


def clean_text(value: str | None, *, what: str, max_chars: int, required: bool = True) -> str:
    """Strip control characters and surrounding white space; refuse empty or over-long text."""
    text = strip_controls(value or "").strip()
    if required and not text:
        raise InputError(f"The {what} is empty.")
    if len(text) > max_chars:
        raise InputError(
            f"The {what} is {len(text):,} characters long; the limit is {max_chars:,}. "
            "Shorten it (quote only the part that matters)."
        )
    return text


def clean_question(question: str | None) -> str:
    return clean_text(question, what="question", max_chars=MAX_QUESTION_CHARS)


def clean_query(query: str | None) -> str:
    return clean_text(query, what="search query", max_chars=MAX_QUERY_CHARS)


def clip_query(text: str, max_chars: int = MAX_QUERY_CHARS) -> str:
    """`text` cut to a usable search query: at most `max_chars`, at a word boundary. For the
    searches the agent makes of the user's question itself, which may be 4,000 characters
    long: refusing them would leave a long question never searched."""
    text = strip_controls(text).strip()
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars + 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut[:max_chars]).rstrip()
