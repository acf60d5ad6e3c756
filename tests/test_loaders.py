"""Loaders: every format on small fixtures written to tmp_path (no shared data, no database)."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from docsassistant.loaders import (
    SUPPORTED_EXTENSIONS,
    LoadedDocument,
    LoaderError,
    UnsupportedFileType,
    load_document,
)

DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def section(doc: LoadedDocument, *path: str) -> str:
    """Text of the (first) section with exactly this path."""
    for s in doc.sections:
        if s.path == list(path):
            return s.text
    raise AssertionError(f"no section {list(path)} in {[s.path for s in doc.sections]}")


def all_text(doc: LoadedDocument) -> str:
    return "\n".join(s.text for s in doc.sections)


# ----------------------------------------------------------------------------- Markdown


def test_markdown_front_matter_title_and_heading_paths(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "hnsw.md",
        "---\nid: hnsw.md\ntitle: HNSW Guide\nsummary: x\n---\n\n"
        "# HNSW\n\nIntro text.\n\n## Index Options\n\nSet m.\n\n### Query Options\n\nSet ef_search.\n\n"
        "## Other\n\nMore.\n",
    )
    doc = load_document(path)
    assert doc.title == "HNSW Guide"
    assert doc.media_type == "text/markdown"
    assert "id: hnsw.md" not in all_text(doc)
    # The sole H1 is the page title: it is not repeated in every path.
    assert section(doc) == "Intro text."
    assert section(doc, "Index Options") == "Set m."
    assert section(doc, "Index Options", "Query Options") == "Set ef_search."
    assert section(doc, "Other") == "More."
    assert all(s.page is None for s in doc.sections)


def test_markdown_odd_front_matter(tmp_path: Path) -> None:
    broken = load_document(write(tmp_path, "broken.md", "---\ntitle: [unclosed\n---\n\nBody text.\n"))
    assert all_text(broken) == "Body text."
    rule = load_document(write(tmp_path, "rule.md", "---\n\nNot front matter.\n\n---\n\nMore.\n"))
    assert "Not front matter." in all_text(rule) and "More." in all_text(rule)


def test_markdown_title_falls_back_to_first_h1_then_stem(tmp_path: Path) -> None:
    assert load_document(write(tmp_path, "a.md", "# Real Title\n\nBody.\n")).title == "Real Title"
    assert load_document(write(tmp_path, "my-notes.md", "Just text.\n")).title == "my-notes"


def test_markdown_several_h1s_stay_in_the_path(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "a.md", "# One\n\nA.\n\n## Sub\n\nB.\n\n# Two\n\nC.\n"))
    assert doc.title == "One"
    assert [s.path for s in doc.sections] == [["One"], ["One", "Sub"], ["Two"]]


def test_markdown_headings_inside_code_fences_are_code(tmp_path: Path) -> None:
    text = (
        "# Shell\n\n## Setup\n\nRun this:\n\n"
        "```bash\n# install the package\npip install x\n## not a heading either\n```\n\n"
        "~~~\n# tilde fence\n~~~\n\nAfter.\n"
    )
    doc = load_document(write(tmp_path, "a.md", text))
    assert [s.path for s in doc.sections] == [["Setup"]]
    body = section(doc, "Setup")
    assert "```bash\n# install the package\npip install x\n## not a heading either\n```" in body
    assert "# tilde fence" in body
    assert body.endswith("After.")


def test_markdown_raw_html_is_reduced_to_text(tmp_path: Path) -> None:
    text = (
        "# Page\n\n"
        '<div class="alert note">\n\nKeep **this** note.\n\n</div>\n\n'
        "<!-- an editor's comment -->\n\n"
        "<table>\n<tr><th>Param</th><th>Meaning</th></tr>\n"
        "<tr><td><code>nlist</code></td><td>Number of lists.<br/>Default 128.</td></tr>\n</table>\n\n"
        "Line one<br/>line two &amp; more, keep `<br/>` in code.\n\n"
        '<h3 id="syntax">Syntax</h3>\n\nUse it.\n'
    )
    doc = load_document(write(tmp_path, "a.md", text))
    body = all_text(doc)
    assert "<" not in body.replace("`<br/>`", "")
    assert "Keep **this** note." in body
    assert "editor's comment" not in body
    assert "Param | Meaning" in body
    assert "nlist | Number of lists." in body
    assert "Line one line two & more, keep `<br/>` in code." in body
    # A lone <h3> block is a heading like ### would be.
    assert section(doc, "Syntax") == "Use it."


def test_markdown_image_urls_become_alt_text(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "a.md", "Intro ![Benchmarks](https://x/y.png) end.\n"))
    assert all_text(doc) == "Intro Benchmarks end."


def test_markdown_heading_only_stub_keeps_its_words(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "stub.md", "# Quick start\n\n## Go to [the guide](x.md) instead.\n"))
    assert doc.title == "Quick start"
    assert all_text(doc) == "Go to the guide instead."


# ----------------------------------------------------------------------------- AsciiDoc


def test_asciidoc_headings_attributes_and_links(tmp_path: Path) -> None:
    text = (
        "[[top]]\n= Chat Memory\n:page-aliases: old.adoc\n:version: 1.2.3\n\n"
        "Uses version {version} and keeps {undefined} as is.\n\n"
        "See xref:api/chatclient.adoc#advisors[the advisors] or xref:api/tools.adoc[].\n"
        "Read https://example.com/docs[the docs], link:https://example.com/x[Example^] "
        "and <<memory-types,Memory types>>.\n\n"
        "== Memory Types\n\nText.\n\n=== Message Window\n\n// a comment\nWindow text.\n"
    )
    doc = load_document(write(tmp_path, "chat-memory.adoc", text))
    assert doc.title == "Chat Memory"
    assert doc.media_type == "text/asciidoc"
    intro = section(doc)
    assert "Uses version 1.2.3 and keeps {undefined} as is." in intro
    assert "See the advisors or tools." in intro
    assert "Read the docs, Example and Memory types." in intro
    assert ":version:" not in all_text(doc) and "page-aliases" not in all_text(doc)
    assert section(doc, "Memory Types") == "Text."
    assert section(doc, "Memory Types", "Message Window") == "Window text."


def test_asciidoc_blocks_tables_and_listings(tmp_path: Path) -> None:
    text = (
        "= Props\n\n== Config\n\n[NOTE]\n====\nMind the prefix.\n====\n\n"
        "[source,yaml]\n----\nspring:\n  ai: {x}\n\n== not a heading\n----\n\n"
        '[cols="2,3"]\n|===\n| Property | Default\n\n| spring.ai.retry | 10\n|===\n\n'
        "////\nhidden comment block\n////\n\n"
        "image::diagram.png[Diagram, width=300]\nDone.\n"
    )
    doc = load_document(write(tmp_path, "props.adoc", text))
    body = section(doc, "Config")
    assert "NOTE:\nMind the prefix." in body
    assert "```yaml\nspring:\n  ai: {x}\n\n== not a heading\n```" in body
    assert "Property | Default" in body and "spring.ai.retry | 10" in body
    assert "|===" not in body and "====" not in body and "[source" not in body
    assert "hidden comment" not in body and "image::" not in body
    assert body.endswith("Done.")


def test_asciidoc_includes_resolve_inside_the_folder_only(tmp_path: Path) -> None:
    write(tmp_path, "docs/shared.adoc", "Shared paragraph.\n")
    write(tmp_path, "secret.adoc", "Outside the folder.\n")
    path = write(
        tmp_path,
        "docs/page.adoc",
        "= Page\n\ninclude::shared.adoc[]\ninclude::missing.adoc[]\ninclude::../secret.adoc[]\n"
        "include::partial$openai/x.adoc[]\nOwn text.\n",
    )
    body = all_text(load_document(path))
    assert "Shared paragraph." in body
    assert "Outside the folder" not in body
    assert "include::" not in body
    assert body.endswith("Own text.")


def test_asciidoc_include_only_stub_loads_the_included_page(tmp_path: Path) -> None:
    write(tmp_path, "bedrock.adoc", "= Amazon Bedrock\n\nBedrock text.\n")
    doc = load_document(write(tmp_path, "bedrock-chat.adoc", "include::bedrock.adoc[]"))
    assert doc.title == "Amazon Bedrock"
    assert all_text(doc) == "Bedrock text."


def test_asciidoc_include_cycle_does_not_loop(tmp_path: Path) -> None:
    write(tmp_path, "a.adoc", "A text.\ninclude::b.adoc[]\n")
    write(tmp_path, "b.adoc", "B text.\ninclude::a.adoc[]\n")
    assert all_text(load_document(tmp_path / "a.adoc")) == "A text.\nB text."


@pytest.mark.parametrize(
    "text",
    ["include::nowhere.adoc[]", "[[appendix]]\n[[glossary]]\n= Glossary\n", "", "   \n\n"],
)
def test_asciidoc_stub_with_nothing_left_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(LoaderError, match="has no text to index"):
        load_document(write(tmp_path, "stub.adoc", text))


# ----------------------------------------------------------------------------- text / HTML


def test_plain_text_one_section_titled_by_first_line(tmp_path: Path) -> None:
    long_line = "A" * 200
    doc = load_document(write(tmp_path, "notes.txt", f"\n\n{long_line}\nsecond line\n"))
    assert doc.media_type == "text/plain"
    assert len(doc.title) <= 120 and doc.title.startswith("AAAA")
    assert len(doc.sections) == 1 and doc.sections[0].path == []
    assert doc.sections[0].text.endswith("second line")


def test_text_encodings(tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes("\ufeffCafé menu".encode())
    (tmp_path / "latin.txt").write_bytes("Café menu".encode("latin-1"))
    (tmp_path / "utf16.txt").write_bytes("Café menu".encode("utf-16"))
    for name in ("bom.txt", "latin.txt", "utf16.txt"):
        assert load_document(tmp_path / name).sections[0].text == "Café menu"
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02binary\x00")
    with pytest.raises(LoaderError, match="not a text file"):
        load_document(tmp_path / "binary.txt")


HTML_PAGE = """<!doctype html>
<html><head><title>Widget Guide</title><style>body{color:red}</style></head>
<body>
<header><a href="/">Home</a> Site header</header>
<nav><ul><li>Nav link one</li></ul></nav>
<div class="sidebar-menu">Sidebar junk</div>
<main>
  <div class="breadcrumbs">Docs / Widgets</div>
  <h1>Widgets</h1>
  <p>Widgets are <em>small</em> things.</p>
  <div class="toc">Contents: Install</div>
  <h2>Install</h2>
  <p>Run the installer.</p>
  <pre>pip install widgets
  widgets --init</pre>
  <h3>Options</h3>
  <table><tr><th>Name</th><th>Default</th></tr><tr><td>size</td><td>3</td></tr></table>
  <ul><li>first</li><li>second</li></ul>
  <script>alert("x")</script>
</main>
<footer>Copyright footer</footer>
</body></html>
"""


def test_html_main_content_sections_and_chrome_removed(tmp_path: Path) -> None:
    doc = load_document(write(tmp_path, "guide.html", HTML_PAGE))
    assert doc.title == "Widget Guide"
    assert doc.media_type == "text/html"
    body = all_text(doc)
    for junk in (
        "Site header",
        "Nav link",
        "Sidebar junk",
        "Docs / Widgets",
        "Contents:",
        "Copyright",
        "alert",
        "color:red",
    ):
        assert junk not in body
    assert section(doc) == "Widgets are small things."
    install = section(doc, "Install")
    assert install.startswith("Run the installer.")
    assert "pip install widgets\n  widgets --init" in install  # <pre> kept verbatim
    options = section(doc, "Install", "Options")
    assert "Name | Default\nsize | 3" in options
    assert "- first\n- second" in options


def test_html_without_main_uses_body_and_h1_title(tmp_path: Path) -> None:
    page = "<html><body><h1>Only Heading</h1><p>Text here.</p><h2>Part</h2><p>More.</p></body></html>"
    doc = load_document(write(tmp_path, "page.htm", page))
    assert doc.title == "Only Heading"
    assert [s.path for s in doc.sections] == [[], ["Part"]]


# ----------------------------------------------------------------------------- PDF


def make_text_pdf(path: Path, pages: list[str], title: str | None = None) -> Path:
    pdf = canvas.Canvas(str(path), pagesize=A4)
    if title:
        pdf.setTitle(title)
    for text in pages:
        y = 800
        for line in text.split("\n"):
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return path


def test_pdf_one_section_per_page_with_page_numbers(tmp_path: Path) -> None:
    path = make_text_pdf(
        tmp_path / "report.pdf",
        ["Quarterly Report\nRevenue grew by ten percent.", "Second page about costs."],
    )
    doc = load_document(path)
    assert doc.media_type == "application/pdf"
    assert doc.title == "Quarterly Report"  # no metadata title: first line
    assert [(s.path, s.page) for s in doc.sections] == [([], 1), ([], 2)]
    assert "Revenue grew by ten percent." in doc.sections[0].text
    assert "Second page about costs." in doc.sections[1].text


def test_pdf_metadata_title_wins_unless_placeholder(tmp_path: Path) -> None:
    titled = make_text_pdf(tmp_path / "a.pdf", ["Body line"], title="Annual Review 2024")
    assert load_document(titled).title == "Annual Review 2024"
    untitled = make_text_pdf(tmp_path / "b.pdf", ["Body line"], title="Untitled")
    assert load_document(untitled).title == "Body line"


def test_pdf_without_text_layer_asks_for_ocr(tmp_path: Path) -> None:
    path = tmp_path / "scan.pdf"
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.rect(100, 100, 300, 400, fill=1)  # an "image" of a page, no text objects
    pdf.showPage()
    pdf.save()
    with pytest.raises(LoaderError, match=r"no extractable text layer .*scanned image.*ocrmypdf"):
        load_document(path)


def test_corrupt_pdf_is_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"this is not a pdf at all")
    with pytest.raises(LoaderError, match=r"broken\.pdf could not be read as a PDF"):
        load_document(tmp_path / "broken.pdf")


# ----------------------------------------------------------------------------- DOCX


def test_docx_headings_and_table_in_reading_order(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Deployment Handbook", style="Title")
    document.add_paragraph("Preface text.")
    document.add_heading("Install", level=1)
    document.add_paragraph("Before the table.")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("Setting", "Value"), ("replicas", "3")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_paragraph("After the table.")
    document.add_heading("Upgrade", level=2)
    document.add_paragraph("Step one.", style="List Bullet")
    document.add_heading("Remove", level=1)
    document.add_paragraph("Bye.")
    path = tmp_path / "handbook.docx"
    document.save(str(path))

    doc = load_document(path)
    assert doc.media_type == DOCX_TYPE
    assert doc.title == "Deployment Handbook"
    assert [s.path for s in doc.sections] == [[], ["Install"], ["Install", "Upgrade"], ["Remove"]]
    assert section(doc) == "Preface text."
    install = section(doc, "Install")
    assert (
        install.index("Before the table.")
        < install.index("Setting | Value")
        < install.index("After the table.")
    )
    assert "replicas | 3" in install
    assert section(doc, "Install", "Upgrade") == "- Step one."


def test_docx_core_title_wins(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "From Properties"
    document.add_heading("A Heading", level=1)
    document.add_paragraph("Text.")
    path = tmp_path / "t.docx"
    document.save(str(path))
    assert load_document(path).title == "From Properties"


def test_corrupt_docx_is_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(LoaderError, match=r"broken\.docx could not be read as a Word"):
        load_document(tmp_path / "broken.docx")


# ----------------------------------------------------------------------------- dispatch


@pytest.mark.parametrize("name", ["slides.pptx", "data.csv", "sheet.xlsx", "tool.exe", "README"])
def test_unsupported_types_list_the_supported_ones(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(b"whatever")
    with pytest.raises(UnsupportedFileType) as info:
        load_document(path)
    message = str(info.value)
    assert name in message
    assert "Supported: .md, .markdown, .adoc, .asciidoc, .txt, .html, .htm, .pdf, .docx" in message
    assert isinstance(info.value, LoaderError)


def test_extension_is_case_insensitive(tmp_path: Path) -> None:
    assert load_document(write(tmp_path, "UPPER.MD", "# T\n\nBody.\n")).media_type == "text/markdown"


def test_supported_extensions_are_exported() -> None:
    assert SUPPORTED_EXTENSIONS == (
        ".md",
        ".markdown",
        ".adoc",
        ".asciidoc",
        ".txt",
        ".html",
        ".htm",
        ".pdf",
        ".docx",
    )


@pytest.mark.parametrize("name", ["empty.md", "empty.txt", "empty.html", "blank.md"])
def test_empty_documents_are_refused(tmp_path: Path, name: str) -> None:
    content = "" if name.startswith("empty") else "---\ntitle: Only front matter\n---\n\n   \n"
    with pytest.raises(LoaderError, match=rf"{name} has no text to index"):
        load_document(write(tmp_path, name, content))


def test_missing_file_is_a_loader_error(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match="not found"):
        load_document(tmp_path / "nope.md")


def test_control_characters_are_removed(tmp_path: Path) -> None:
    (tmp_path / "ctl.md").write_text("Text\x07 with bell\x0b.\r\nNext line.\r\n", encoding="utf-8")
    assert all_text(load_document(tmp_path / "ctl.md")) == "Text with bell.\nNext line."


@pytest.mark.parametrize("name", ["zero.pdf", "zero.docx", "zero.adoc"])
def test_zero_byte_files_have_no_text(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    with pytest.raises(LoaderError, match="has no text to index"):
        load_document(tmp_path / name)


def test_a_file_that_is_not_a_pdf_fails_with_pypdfs_findings_and_nothing_on_stderr(tmp_path, capfd) -> None:
    """pypdf logs "invalid pdf header" to stderr by itself, naming no file: the findings go
    into this file's error instead."""
    from docsassistant.loaders import LoaderError
    from docsassistant.loaders.pdf import load

    fake = tmp_path / "notes.pdf"
    fake.write_text("This is plain text with a .pdf name.\n")
    with pytest.raises(LoaderError, match=r"notes\.pdf could not be read as a PDF: .*invalid pdf header"):
        load(fake)
    assert capfd.readouterr().err == ""
