"""PDF via pypdf: one section per page, numbered from 1."""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pypdf import PdfReader

from docsassistant.loaders import MAX_DOCUMENT_CHARS, LoaderError, Section, clean_text

# Titles that PDF producers write when the author set none.
_JUNK_TITLES = re.compile(
    r"^(?:untitled.*|document\d*|title|microsoft word - .*|.*\.(?:docx?|pdf|tex|odt))$", re.I
)
# Pages per PDF: each one costs an extraction (2-6 ms, more for complex pages), and a
# 123 KB file can list one page 20,000 times. At the 2 M-character document limit this
# still allows 400 characters a page; longer PDFs are refused before any page is read.
MAX_PDF_PAGES = 5000


class _PypdfMessages(logging.Handler):
    """pypdf logs what it finds wrong with a file ("invalid pdf header", "EOF marker not found")
    and, with nothing configured, those lines land on stderr naming no file. They are kept,
    per thread, for the error of the file being read instead."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        sink = getattr(self.local, "messages", None)
        if sink is not None and len(sink) < 5:
            sink.append(record.getMessage())


_HANDLER = _PypdfMessages()
logging.getLogger("pypdf").addHandler(_HANDLER)
logging.getLogger("pypdf").propagate = False


@contextmanager
def _messages() -> Iterator[list[str]]:
    _HANDLER.local.messages = []
    try:
        yield _HANDLER.local.messages
    finally:
        _HANDLER.local.messages = None


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .pdf file, one Section per page with text."""
    with _messages() as noticed:
        try:
            reader = PdfReader(path)
            if reader.is_encrypted and not reader.decrypt(""):
                raise LoaderError(
                    f"{path.name} is password-protected. Remove the password and upload it again."
                )
            pages = list(reader.pages)
            if len(pages) > MAX_PDF_PAGES:
                raise LoaderError(
                    f"{path.name} has {len(pages):,} pages; the limit is {MAX_PDF_PAGES:,} per document. "
                    "Split it into smaller files."
                )
        except LoaderError:
            raise
        except Exception as exc:  # pypdf raises many types for damaged files
            found = f" ({'; '.join(noticed)})" if noticed else ""
            raise LoaderError(
                f"{path.name} could not be read as a PDF: {exc}{found}. Check that it is a PDF file, "
                "not another format renamed, and export it again if it is damaged."
            ) from exc

    sections = []
    chars = 0  # cleaned text so far: stop at the limit instead of extracting every page first
    for number, page in enumerate(pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception:
            # One damaged page should not sink the rest of the document.
            text = ""
        # NFKC folds ligatures (ﬁ -> fi) that PDF fonts use, so searches match.
        text = unicodedata.normalize("NFKC", text)
        if text.strip():
            sections.append(Section([], text, page=number))
            chars += len(clean_text(text))
            if chars > MAX_DOCUMENT_CHARS:
                raise LoaderError(
                    f"{path.name} holds more than {MAX_DOCUMENT_CHARS:,} characters of text (reading "
                    f"stopped at page {number:,} of {len(pages):,}); the limit is {MAX_DOCUMENT_CHARS:,} "
                    "per document. Split it into smaller files."
                )
    if not sections:
        raise LoaderError(
            f"{path.name} has no extractable text layer (is it a scanned image?). "
            "Run OCR on it first (e.g. ocrmypdf) and upload the result."
        )
    return _title(reader, path, sections), sections


def _title(reader: PdfReader, path: Path, sections: list[Section]) -> str | None:
    """Metadata title unless it is a placeholder or a file name, else the first line."""
    try:
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except Exception:
        meta_title = ""
    meta_title = " ".join(str(meta_title).split())
    looks_like_file_name = (" " not in meta_title and "_" in meta_title) or meta_title == path.stem
    if meta_title and not looks_like_file_name and not _JUNK_TITLES.match(meta_title):
        return meta_title
    return next((line.strip() for line in sections[0].text.splitlines() if line.strip()), None)
