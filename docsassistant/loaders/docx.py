"""Word .docx via python-docx: Title/Heading styles build the path, tables become rows."""

from __future__ import annotations

import copy
import re
import sys
import zipfile
from pathlib import Path

import docx
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.styles import BabelFish
from docx.table import Table
from docx.text.paragraph import Paragraph

from docsassistant.loaders import MAX_DOCUMENT_CHARS, LoaderError, Section, SectionBuilder

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.I)
# A .docx is a zip of XML parts; python-docx expands and parses them all in memory (lxml
# trees take ~10x the XML's size). The zip directory's sizes can lie, and ZipFile.read()
# inflates a whole member before it checks anything (a 2 MB file claiming 2 KB inflated
# to 2 GB), so every member is first inflated in bounded reads and its real size counted.
MAX_EXPANDED_BYTES = 50_000_000
MAX_XML_BYTES = 10 * MAX_DOCUMENT_CHARS  # markup around 2 M characters of text
# Paragraphs (empty ones included) per document: each costs python-docx objects and
# XPath work, so 300 k empty paragraphs in a 23 KB file took minutes. 2 M characters of
# text (the document limit) in paragraphs of 20 characters is 100 k paragraphs.
MAX_PARAGRAPHS = 100_000
_READ_BYTES = 1 << 16  # one bounded read while counting a member's inflated size
_W_VAL = qn("w:val")


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .docx file."""
    check_expanded_size(path)
    try:
        document = docx.Document(str(path))
        check_paragraph_count(path, document)
        style_names = _paragraph_style_names(document)
        blocks = list(document.iter_inner_content())
    except LoaderError:
        raise
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
        style = _style_name(block, style_names)
        level = _heading_level(style)
        text = block.text
        if level is not None:
            builder.heading(level, text)
        elif text.strip():
            # Keep list items recognisable as such once the formatting is gone.
            builder.add(f"- {text}" if style.lower().startswith("list") else text)
    heading_title, sections = builder.finish()
    core_title = (document.core_properties.title or "").strip()
    return core_title or heading_title, sections


def _refuse_unreadable(path: Path, exc: Exception) -> LoaderError:
    return LoaderError(
        f"{path.name} could not be read as a Word (.docx) document ({exc}). "
        "Re-save it as .docx and upload it again."
    )


def check_expanded_size(path: Path) -> None:
    """Refuse a .docx whose parts expand past MAX_EXPANDED_BYTES (or XML past MAX_XML_BYTES).

    The directory's stated sizes are checked first (cheap); then each member is inflated
    in reads of 64 KB, counting the bytes that really come out, and reading stops as soon
    as a limit is passed. A member whose real size differs from the stated one is refused:
    python-docx would inflate all of it in one piece.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
            stated = sum(m.file_size for m in members)
            stated_xml = sum(m.file_size for m in members if _is_xml(m))
            if stated > MAX_EXPANDED_BYTES or stated_xml > MAX_XML_BYTES:
                raise _too_big(path, f"{stated / 1e6:.1f} MB ({stated_xml / 1e6:.1f} MB of XML)")
            expanded = xml = 0
            for member in members:
                if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    # Word only writes deflate; bzip2/LZMA inflate a whole read at once, unbounded.
                    raise LoaderError(
                        f"{path.name} is not a Word-written .docx: {member.filename} uses zip "
                        f"compression method {member.compress_type}. Re-save it as .docx and upload it again."
                    )
                real = 0
                # A copy whose stated size cannot stop the stream: zipfile would otherwise
                # cut the member off at the (possibly false) size it claims.
                probe = copy.copy(member)
                probe.file_size = sys.maxsize
                with archive.open(probe) as stream:
                    while chunk := stream.read(_READ_BYTES):
                        real += len(chunk)
                        if expanded + real > MAX_EXPANDED_BYTES or (
                            _is_xml(member) and xml + real > MAX_XML_BYTES
                        ):
                            raise _too_big(
                                path,
                                f"more than {MAX_EXPANDED_BYTES / 1e6:.0f} MB"
                                if expanded + real > MAX_EXPANDED_BYTES
                                else f"more than {MAX_XML_BYTES / 1e6:.0f} MB of XML",
                                member,
                                real,
                            )
                if real != member.file_size:
                    raise LoaderError(
                        f"{path.name} is a damaged or crafted .docx: {member.filename} inflates to "
                        f"{real:,} bytes but the zip directory says {member.file_size:,}. "
                        "Re-save it as .docx and upload it again."
                    )
                expanded += real
                xml += real if _is_xml(member) else 0
    except LoaderError:
        raise
    except Exception as exc:  # BadZipFile, zlib.error, EOFError, RuntimeError (encrypted) ...
        raise _refuse_unreadable(path, exc) from exc


def _is_xml(member: zipfile.ZipInfo) -> bool:
    return member.filename.endswith((".xml", ".rels"))


def _too_big(path: Path, how_much: str, member: zipfile.ZipInfo | None = None, real: int = 0) -> LoaderError:
    lied = (
        f" ({member.filename} alone inflated past {real / 1e6:.1f} MB though the zip directory "
        f"says {member.file_size / 1e6:.3f} MB; reading stopped there)"
        if member is not None and real > member.file_size
        else ""
    )
    return LoaderError(
        f"{path.name} expands to {how_much} from {path.stat().st_size / 1e6:.2f} MB on disk{lied}; "
        f"the limits are {MAX_EXPANDED_BYTES / 1e6:.0f} MB and {MAX_XML_BYTES / 1e6:.0f} MB of XML. "
        "Split the document or remove embedded media."
    )


def check_paragraph_count(path: Path, document: DocxDocument) -> None:
    """Refuse a document with more than MAX_PARAGRAPHS paragraphs (tables' included)."""
    # One lxml XPath over the tree is milliseconds even for 300 k paragraphs.
    count = int(document.element.body.xpath("count(.//w:p)"))
    if count > MAX_PARAGRAPHS:
        raise LoaderError(
            f"{path.name} holds {count:,} paragraphs; the limit is {MAX_PARAGRAPHS:,} per document. "
            "Split it into smaller files."
        )


def _paragraph_style_names(document: DocxDocument) -> tuple[dict[str, str], str]:
    """(style id → name for paragraph styles, name of the default paragraph style).

    Built once: python-docx's `paragraph.style` looks the default style up by XPath on
    every call, which made a document of 300 k paragraphs cost minutes.
    """
    names: dict[str, str] = {}
    default = ""
    try:
        styles = document.styles.element
    except Exception:  # no styles part: every paragraph is body text
        return names, default
    for style in styles.iterchildren(qn("w:style")):
        if style.get(qn("w:type"), "paragraph") != "paragraph":
            continue
        name_el = style.find(qn("w:name"))
        name = BabelFish.internal2ui(name_el.get(_W_VAL, "")) if name_el is not None else ""
        style_id = style.get(qn("w:styleId"))
        if style_id is not None:
            names.setdefault(style_id, name)
        if style.get(qn("w:default")) in ("1", "true", "on"):
            default = name  # the last default wins, as in python-docx
    return names, default


def _style_name(paragraph: Paragraph, style_names: tuple[dict[str, str], str]) -> str:
    """The paragraph's style name, as python-docx would give it (unknown ids → default)."""
    names, default = style_names
    ppr = paragraph._p.pPr
    style = ppr.find(qn("w:pStyle")) if ppr is not None else None
    style_id = style.get(_W_VAL) if style is not None else None
    return names.get(style_id, default) if style_id is not None else default


def _heading_level(style_name: str) -> int | None:
    """0 for the Title style, n for "Heading n", None for body text."""
    if style_name.lower() == "title":
        return 0
    match = _HEADING_STYLE.match(style_name)
    return int(match.group(1)) if match else None


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
