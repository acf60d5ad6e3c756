"""Word .docx via python-docx: Title/Heading styles build the path, tables become rows."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from docsassistant.loaders import MAX_DOCUMENT_CHARS, LoaderError, Section, SectionBuilder

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.I)
# A .docx is a zip of XML parts; python-docx expands and parses them all in memory (lxml
# trees take ~10x the XML's size). Sizes are checked from the zip's directory before
# anything is expanded, and Python's zipfile never inflates past a member's stated size.
MAX_EXPANDED_BYTES = 50_000_000
MAX_XML_BYTES = 10 * MAX_DOCUMENT_CHARS  # markup around 2 M characters of text


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .docx file."""
    check_expanded_size(path)
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


def check_expanded_size(path: Path) -> None:
    """Refuse a .docx whose parts expand past MAX_EXPANDED_BYTES (or XML past MAX_XML_BYTES)."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise LoaderError(
            f"{path.name} could not be read as a Word (.docx) document ({exc}). "
            "Re-save it as .docx and upload it again."
        ) from exc
    expanded = sum(m.file_size for m in members)
    xml = sum(m.file_size for m in members if m.filename.endswith((".xml", ".rels")))
    if expanded > MAX_EXPANDED_BYTES or xml > MAX_XML_BYTES:
        raise LoaderError(
            f"{path.name} expands to {expanded / 1e6:.1f} MB ({xml / 1e6:.1f} MB of XML) from "
            f"{path.stat().st_size / 1e6:.2f} MB on disk; the limits are {MAX_EXPANDED_BYTES / 1e6:.0f} MB "
            f"and {MAX_XML_BYTES / 1e6:.0f} MB of XML. Split the document or remove embedded media."
        )


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
