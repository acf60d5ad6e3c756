"""Second QA pass on file loading: a .docx lying about its size, paragraph floods, PDF
page amplification, FIFOs and symbolic links in ingested folders, bidi file names."""

from __future__ import annotations

import io
import os
import re
import struct
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import docx
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docsassistant import sources
from docsassistant.documents import list_documents
from docsassistant.ingest import index_paths
from docsassistant.loaders import LoaderError, load_document

# ----------------------------------------------------------------------- .docx


def _docx_bytes(paragraphs: int = 1) -> bytes:
    document = docx.Document()
    for i in range(paragraphs):
        document.add_paragraph(f"paragraph {i}")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _lying_docx(path: Path, inflated_mb: float, stated: int = 2048) -> Path:
    """A .docx whose word/document.xml inflates to `inflated_mb` MB while the local header
    and the zip directory both claim `stated` bytes."""
    with zipfile.ZipFile(io.BytesIO(_docx_bytes())) as source:
        parts = {item.filename: source.read(item.filename) for item in source.infolist()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            if name != "word/document.xml":
                target.writestr(name, data)
                continue
            head, _, tail = data.partition(b"<w:body>")
            with target.open(name, "w", force_zip64=False) as out:
                out.write(head + b"<w:body><w:p><w:r><w:t>")
                block = b"A" * (1 << 20)
                for _ in range(int(inflated_mb)):
                    out.write(block)
                out.write(b"B" * int((inflated_mb % 1) * (1 << 20)))
                out.write(b"</w:t></w:r></w:p></w:body>" + tail.partition(b"</w:body>")[2])
    raw = bytearray(buffer.getvalue())
    name = b"word/document.xml"
    for signature, size_at, name_len_at, name_at in (
        (b"PK\x03\x04", 22, 26, 30),
        (b"PK\x01\x02", 24, 28, 46),
    ):
        i = raw.find(signature)
        while i >= 0:
            (length,) = struct.unpack_from("<H", raw, i + name_len_at)
            if bytes(raw[i + name_at : i + name_at + length]) == name:
                struct.pack_into("<I", raw, i + size_at, stated)
            i = raw.find(signature, i + 4)
    path.write_bytes(bytes(raw))
    return path


def test_a_docx_understating_its_size_is_refused_without_inflating_it(tmp_path: Path) -> None:
    bomb = _lying_docx(tmp_path / "bomb.docx", inflated_mb=120)
    assert bomb.stat().st_size < 500_000
    tracemalloc.start()
    try:
        with pytest.raises(LoaderError, match=r"inflated past .* zip directory says .*reading stopped"):
            load_document(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # ZipFile.read() would hold all 120 MB at once; the check reads 64 KB at a time.
    assert peak < 10_000_000, f"peak {peak / 1e6:.1f} MB"


def test_a_docx_misstating_a_small_member_is_refused_as_crafted(tmp_path: Path) -> None:
    liar = _lying_docx(tmp_path / "liar.docx", inflated_mb=0.2)
    with pytest.raises(
        LoaderError, match=r"liar\.docx is a damaged or crafted \.docx: word/document\.xml inflates to"
    ):
        load_document(liar)


def test_an_ordinary_docx_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "plain.docx"
    path.write_bytes(_docx_bytes(3))
    assert "paragraph 2" in load_document(path).sections[0].text


def _styled_docx(path: Path) -> Path:
    """Headings under a localised style id (Word in German writes `berschrift1`), a list
    item, a paragraph naming a style id that does not exist, and a Title."""
    document = docx.Document()
    document.add_paragraph("Handbook", style="Title")
    heading = document.add_paragraph("Installation", style="Heading 1")
    document.add_paragraph("Run the installer.")
    document.add_paragraph("first step", style="List Bullet")
    orphan = document.add_paragraph("Orphan style text.")
    document.save(path)
    # Rename the Heading 1 style id, as localised Word does; the name stays "heading 1".
    document = docx.Document(str(path))
    styles = document.styles.element
    for style in styles.iterchildren("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}style"):
        if style.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}styleId") == "Heading1":
            style.set("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}styleId", "berschrift1")
    heading = document.paragraphs[1]
    heading._p.pPr.pStyle.val = "berschrift1"
    orphan = document.paragraphs[4]
    orphan.style = document.styles["Normal"]
    orphan._p.get_or_add_pPr().get_or_add_pStyle().val = "NoSuchStyle"
    document.save(path)
    return path


def test_docx_styles_are_read_from_the_style_ids_without_python_docx_lookups(
    tmp_path: Path, monkeypatch
) -> None:
    path = _styled_docx(tmp_path / "styled.docx")
    from docx.text.paragraph import Paragraph

    calls = []
    original = Paragraph.style

    def counted(self):
        calls.append(1)
        return original.fget(self)

    # python-docx's `paragraph.style` runs an XPath per call: minutes for 300 k paragraphs.
    monkeypatch.setattr(Paragraph, "style", property(counted, original.fset))
    doc = load_document(path)
    assert calls == []
    assert doc.title == "Handbook"
    [section] = doc.sections
    assert section.path == ["Installation"]
    assert section.text == "Run the installer.\n- first step\nOrphan style text."


def test_a_docx_with_too_many_paragraphs_is_refused_before_reading_them(tmp_path: Path, monkeypatch) -> None:
    import docsassistant.loaders.docx as docx_loader

    monkeypatch.setattr(docx_loader, "MAX_PARAGRAPHS", 50)
    path = tmp_path / "flood.docx"
    path.write_bytes(_docx_bytes(51))
    with pytest.raises(LoaderError, match=r"flood\.docx holds 51 paragraphs; the limit is 50 per document"):
        load_document(path)
    path.write_bytes(_docx_bytes(50))
    assert load_document(path).sections


# ----------------------------------------------------------------------- PDF


def _repeated_page_pdf(path: Path, pages: int, lines: int) -> Path:
    """A PDF of `pages` pages each holding `lines` lines of ~90 characters."""
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for page in range(pages):
        text = pdf.beginText(20, 820)
        text.setFont("Helvetica", 4)
        for i in range(lines):
            text.textLine(
                f"Page {page} line {i}: the quick brown fox jumps over the lazy dog again and again."
            )
        pdf.drawText(text)
        pdf.showPage()
    pdf.save()
    return path


def _count_extractions(monkeypatch) -> list[int]:
    from pypdf import PageObject

    calls: list[int] = []
    original = PageObject.extract_text

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PageObject, "extract_text", counted)
    return calls


def test_pdf_text_over_the_limit_stops_extraction_at_the_page_that_passes_it(
    tmp_path: Path, monkeypatch
) -> None:
    import docsassistant.loaders as loaders
    import docsassistant.loaders.pdf as pdf_loader

    path = _repeated_page_pdf(tmp_path / "long.pdf", pages=40, lines=100)  # ~8,500 characters a page
    monkeypatch.setattr(pdf_loader, "MAX_DOCUMENT_CHARS", 50_000)
    monkeypatch.setattr(loaders, "MAX_DOCUMENT_CHARS", 50_000)
    calls = _count_extractions(monkeypatch)
    with pytest.raises(LoaderError, match=r"long\.pdf holds more than 50,000 characters of text") as refused:
        load_document(path)
    stopped = int(re.search(r"reading stopped at page (\d+) of 40\)", str(refused.value)).group(1))
    assert len(calls) == stopped < 10  # no page after the one that passed the limit is read


def test_a_pdf_with_too_many_pages_is_refused_before_extracting_any(tmp_path: Path, monkeypatch) -> None:
    import docsassistant.loaders.pdf as pdf_loader

    path = _repeated_page_pdf(tmp_path / "pages.pdf", pages=11, lines=1)
    monkeypatch.setattr(pdf_loader, "MAX_PDF_PAGES", 10)
    calls = _count_extractions(monkeypatch)
    with pytest.raises(LoaderError, match=r"pages\.pdf has 11 pages; the limit is 10 per document"):
        load_document(path)
    assert calls == []


# ----------------------------------------------------------------------- FIFOs, links, names


def _unblock_later(fifo: Path, after_s: float) -> None:
    """Open the FIFO's write end after a while, so a reader stuck on it (the bug) returns
    and the test fails instead of hanging the suite."""

    def opener() -> None:
        time.sleep(after_s)
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass  # no reader waiting: nothing to unblock

    threading.Thread(target=opener, daemon=True).start()


def test_a_fifo_in_a_folder_is_skipped_unopened_and_the_rest_indexed(clean_db, tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    os.mkfifo(folder / "x.md")
    (folder / "ok.md").write_text("# OK\n\nThe ordinary page.\n", encoding="utf-8")
    _unblock_later(folder / "x.md", 15)
    start = time.monotonic()
    report = index_paths([folder], "fifo", base=tmp_path)
    assert time.monotonic() - start < 10
    by_path = {r.source_path: r for r in report.results}
    assert by_path["d/ok.md"].status == "added"
    fifo = next(r for r in report.results if r.source_path.endswith("x.md"))
    assert fifo.status == "skipped" and "FIFO (named pipe), not a regular file" in fifo.reason


def test_a_named_fifo_is_refused_and_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    _unblock_later(fifo, 15)
    files, refused = sources.collect_files([fifo])
    assert files == [] and "A FIFO (named pipe)" in refused[0].reason and not refused[0].skipped
    start = time.monotonic()
    with pytest.raises(LoaderError, match="not a regular file"):
        sources.read_regular_file(fifo)  # the guard for a FIFO swapped in after the listing
    assert time.monotonic() - start < 5


def test_links_out_of_the_folder_and_dangling_links_say_what_they_are(clean_db, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n\nNot part of the docs.\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "page.md").write_text("# Page\n\nIndexed.\n", encoding="utf-8")
    (docs / "escape.md").symlink_to(outside)
    (docs / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    report = index_paths([docs], "links", base=docs)
    reasons = {Path(r.source_path).name: r.reason for r in report.by_status("failed")}
    assert "symbolic link" in reasons["escape.md"] and "not followed" in reasons["escape.md"]
    assert "pass --base" not in reasons["escape.md"]
    assert "symbolic link" in reasons["dangling.md"] and "does not exist" in reasons["dangling.md"]
    assert [d["source_path"] for d in list_documents("links")] == ["page.md"]


def test_cli_file_names_lose_bidi_controls_as_uploads_do_and_prune_keeps_them(
    clean_db, tmp_path: Path
) -> None:
    name = "rtl_\u202egnp.md"
    (tmp_path / name).write_text("# Reversed\n\nA page with a bidi override in its name.\n", encoding="utf-8")
    first = index_paths([tmp_path], "bidi", base=tmp_path)
    assert [r.source_path for r in first.by_status("added")] == ["rtl_gnp.md"]
    again = index_paths([tmp_path], "bidi", base=tmp_path, prune=True)
    assert again.counts()["unchanged"] == 1 and again.by_status("removed") == []
    assert [d["source_path"] for d in list_documents("bidi")] == ["rtl_gnp.md"]
