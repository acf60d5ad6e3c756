"""Small files crafted to cost far more than their size (issue 7), generated on demand.

Used by tests/test_hostile_files.py and by `python tests/measure_hostile.py`, which
prints the time and peak memory each one costs to index.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

ORDINARY = "# Gearbox manual\n\n## Oil\n\nChange the gearbox oil every 40,000 km with SAE 75W-90.\n"


def nested_divs(path: Path, depth: int) -> Path:
    """`depth` nested <div>s around one sentence (200k levels is ~2.2 MB)."""
    path.write_text(
        "<html><body>" + "<div>" * depth + "deep text" + "</div>" * depth + "</body></html>", encoding="utf-8"
    )
    return path


def docx_bomb(path: Path, xml_mb: int = 95) -> Path:
    """A real .docx whose word/document.xml expands to about `xml_mb` MB of text."""
    import docx

    buffer = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("placeholder")
    document.save(buffer)
    paragraph = b"<w:p><w:r><w:t>" + b"lorem ipsum dolor sit amet " * 36 + b"</w:t></w:r></w:p>"
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename != "word/document.xml":
                target.writestr(item, data)
                continue
            head, _, tail = data.partition(b"<w:body>")
            with target.open("word/document.xml", "w", force_zip64=True) as out:
                out.write(head + b"<w:body>")
                chunk = paragraph * 1000
                for _ in range(xml_mb * 1024 * 1024 // len(chunk)):
                    out.write(chunk)
                out.write(b"</w:body>" + tail.partition(b"</w:body>")[2])
    return path


def repeated_heading(path: Path, megabytes: float = 16) -> Path:
    """Markdown where one heading repeats over a short paragraph, `megabytes` in all."""
    block = "## Same heading\n\nA short paragraph under the same heading again.\n\n"
    path.write_text(block * int(megabytes * 1024 * 1024 // len(block)), encoding="utf-8")
    return path


def one_line(path: Path, megabytes: float = 10) -> Path:
    """One line of Markdown, `megabytes` long, with words, backticks and unclosed `![`."""
    unit = "word ![alt `tick "
    path.write_text(unit * int(megabytes * 1024 * 1024 // len(unit)), encoding="utf-8")
    return path


def ordinary(path: Path) -> Path:
    path.write_text(ORDINARY, encoding="utf-8")
    return path


def issue_batch(folder: Path, *, large: bool = True) -> dict[str, Path]:
    """The files of issue 7: `large` adds the 200k-div page (2.2 MB) to the 20k one."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "divs-20k.html": nested_divs(folder / "divs-20k.html", 20_000),
        "bomb.docx": docx_bomb(folder / "bomb.docx"),
        "repeated-heading.md": repeated_heading(folder / "repeated-heading.md"),
        "one-line.md": one_line(folder / "one-line.md"),
        "gearbox.md": ordinary(folder / "gearbox.md"),
    }
    if large:
        files["divs-200k.html"] = nested_divs(folder / "divs-200k.html", 200_000)
    return files
