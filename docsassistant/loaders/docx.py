"""Word .docx via python-docx: Title/Heading styles build the path, tables become rows."""

from __future__ import annotations

import re
from pathlib import Path

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from docsassistant.loaders import LoaderError, Section, SectionBuilder

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.I)


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .docx file."""
    try:
        document = docx.Document(str(path))
        blocks = list(document.iter_inner_content())
    except Exception as exc:  # zipfile, lxml and python-docx errors alike
        raise LoaderError(
            # python-docx quotes the full path; the user knows the file by its name.
            f"{path.name} could not be read as a Word (.docx) document: {str(exc).replace(str(path), path.name)}. "
            "Re-save it as .docx and upload it again."
        ) from exc

    builder = SectionBuilder()
    for block in blocks:
        if isinstance(block, Table):
            builder.add("\n" + _table_text(block) + "\n")
            continue
        level = _heading_level(block)
        if level is not None:
            builder.heading(level, block.text)
        elif block.text.strip():
            builder.add(_paragraph_text(block))
    heading_title, sections = builder.finish()
    core_title = (document.core_properties.title or "").strip()
    return core_title or heading_title, sections


def _heading_level(paragraph: Paragraph) -> int | None:
    """0 for the Title style, n for "Heading n", None for body text."""
    name = _style_name(paragraph)
    if name.lower() == "title":
        return 0
    match = _HEADING_STYLE.match(name)
    return int(match.group(1)) if match else None


def _style_name(paragraph: Paragraph) -> str:
    try:
        return (paragraph.style.name or "") if paragraph.style is not None else ""
    except Exception:  # a style id missing from styles.xml
        return ""


def _paragraph_text(paragraph: Paragraph) -> str:
    # Keep list items recognisable as such once the formatting is gone.
    if _style_name(paragraph).lower().startswith("list"):
        return f"- {paragraph.text}"
    return paragraph.text


def _table_text(table: Table) -> str:
    """One line per row, cells joined with ' | '; merged cells appear once."""
    rows = []
    for row in table.rows:
        cells, seen = [], []
        for cell in row.cells:
            if any(cell._tc is tc for tc in seen):  # a merged cell repeats per grid column
                continue
            seen.append(cell._tc)
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)
