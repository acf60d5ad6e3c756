"""Plain-text files: one section, titled by the first non-empty line."""

from __future__ import annotations

from pathlib import Path

from docsassistant.loaders import Section, read_text


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .txt file."""
    text = read_text(path)
    first_line = next((line.strip() for line in text.splitlines() if line.strip()), None)
    return first_line, [Section([], text)]
