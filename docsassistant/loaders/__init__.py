"""Turn an uploaded or ingested file into a title plus heading-scoped sections.

`load_document` is the only entry point callers need; it picks a format module by
file extension. The format modules share the small helpers defined here.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "LoadedDocument",
    "LoaderError",
    "Section",
    "UnsupportedFileType",
    "load_document",
]


@dataclass
class Section:
    """A run of body text under one heading path (document title not included)."""

    path: list[str]
    text: str
    page: int | None = None


@dataclass
class LoadedDocument:
    """A parsed document: its title, media type and sections in reading order."""

    title: str
    media_type: str
    sections: list[Section] = field(default_factory=list)


class LoaderError(ValueError):
    """A file could not be turned into text; the message is shown to end users."""


class UnsupportedFileType(LoaderError):
    """The file extension is not one we can read."""


# extension -> (format module, media type). Format modules are imported lazily so
# that loading a Markdown file never pays for importing pypdf or python-docx.
_FORMATS: dict[str, tuple[str, str]] = {
    ".md": ("markdown", "text/markdown"),
    ".markdown": ("markdown", "text/markdown"),
    ".adoc": ("asciidoc", "text/asciidoc"),
    ".asciidoc": ("asciidoc", "text/asciidoc"),
    ".txt": ("text", "text/plain"),
    ".html": ("html", "text/html"),
    ".htm": ("html", "text/html"),
    ".pdf": ("pdf", "application/pdf"),
    ".docx": (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
}

SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_FORMATS)

TITLE_MAX_CHARS = 120
# Bounds that keep one crafted file from costing minutes or gigabytes (each is refused
# with a message saying so). 2 M characters of text is ~2,400 chunks of 1,000 characters,
# a 600-page book; real documentation pages are far smaller.
MAX_DOCUMENT_CHARS = 2_000_000
# HTML is mostly markup: a 1 MB Wikipedia article holds ~150 k characters of text.
MAX_HTML_CHARS = 10 * MAX_DOCUMENT_CHARS


def load_document(path: Path) -> LoadedDocument:
    """Load `path` with the loader for its (lower-cased) extension.

    Raises UnsupportedFileType for unknown extensions and LoaderError for files that
    cannot be read or contain no text.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _FORMATS:
        shown = f"'{suffix}'" if suffix else "(no extension)"
        raise UnsupportedFileType(
            f"Unsupported file type {shown} ({path.name}). Supported: {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    if not path.is_file():
        raise LoaderError(f"{path.name} was not found or is not a regular file.")
    module_name, media_type = _FORMATS[suffix]
    module = importlib.import_module(f"{__name__}.{module_name}")
    try:
        if path.stat().st_size == 0:
            raise LoaderError(f"{path.name} has no text to index (the file is empty).")
        title, sections = module.load(path)
    except OSError as exc:
        raise LoaderError(f"{path.name} could not be read: {exc.strerror or exc}.") from exc
    except RecursionError as exc:  # a nesting the format's own depth check missed
        raise LoaderError(f"{path.name} is nested too deeply to read.") from exc
    sections = [Section(s.path, text, s.page) for s in sections if (text := clean_text(s.text)).strip()]
    if not sections:
        raise LoaderError(f"{path.name} has no text to index.")
    check_text_size(path.name, sum(len(s.text) for s in sections))
    title = _one_line(title) or path.stem
    return LoadedDocument(title=title, media_type=media_type, sections=sections)


# --------------------------------------------------------------------------- helpers


def check_text_size(name: str, chars: int, limit: int = MAX_DOCUMENT_CHARS, what: str = "text") -> None:
    """Refuse more than `limit` characters of extracted text (or of raw markup)."""
    if chars > limit:
        raise LoaderError(
            f"{name} holds {chars:,} characters of {what}; the limit is {limit:,} per document. "
            "Split it into smaller files."
        )


def read_text(path: Path, max_chars: int = MAX_DOCUMENT_CHARS) -> str:
    """Decode a text file: UTF-8 (with or without BOM), UTF-16 with BOM, else Latin-1.

    Text over `max_chars` characters is refused; a file too big to hold less (more than
    4 bytes, UTF-8's longest character, per allowed character) is refused unread.
    """
    size = path.stat().st_size
    if size > 4 * max_chars:
        raise LoaderError(
            f"{path.name} is {size / 1e6:.1f} MB, more than the {max_chars:,} characters of text "
            "allowed per document. Split it into smaller files."
        )
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise LoaderError(f"{path.name} could not be decoded as UTF-16 text: {exc}") from exc
        check_text_size(path.name, len(text), max_chars)
        return text
    # NUL bytes never occur in real UTF-8/Latin-1 text; they mean a binary file was
    # renamed, and decoding it as Latin-1 would index garbage.
    if b"\x00" in data[:8192]:
        raise LoaderError(
            f"{path.name} is not a text file (it contains binary data). "
            "Save it as UTF-8 text and upload it again."
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Older docs are often Windows-1252/Latin-1; Latin-1 decodes any byte sequence.
        text = data.decode("latin-1")
    check_text_size(path.name, len(text), max_chars)
    return text


_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")


def clean_text(text: str) -> str:
    """Normalise newlines, drop control characters (PostgreSQL rejects NUL), trim blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    text = _CONTROL_CHARS.sub("", text)
    # rstrip per line, not a `[ \t]+$` regex: that one is quadratic in a long run of spaces.
    text = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    text = _MANY_BLANK_LINES.sub("\n\n", text)
    return text.strip("\n")


def _one_line(text: str | None) -> str:
    """Collapse a title to one line of at most TITLE_MAX_CHARS characters."""
    text = " ".join((text or "").split())
    if len(text) > TITLE_MAX_CHARS:
        text = text[: TITLE_MAX_CHARS - 1].rstrip() + "…"
    return text


class SectionBuilder:
    """Collects body lines under a heading stack and emits Sections.

    Format modules call `heading()` for every heading they meet and `add()` for body
    text; `finish()` returns the sections plus the heading used as the document title.
    """

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []
        self._lines: list[str] = []
        self._sections: list[Section] = []
        self._headings: list[tuple[int, str]] = []

    def heading(self, level: int, text: str) -> None:
        text = _one_line(text)
        if not text:
            return
        self._flush()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        self._headings.append((level, text))

    def add(self, text: str) -> None:
        self._lines.append(text)

    def _flush(self) -> None:
        text = "\n".join(self._lines)
        self._lines = []
        if text.strip():
            self._sections.append(Section([h for _, h in self._stack], text))

    def finish(self) -> tuple[str | None, list[Section]]:
        """Return (title heading or None, sections).

        The first heading is treated as the page title, and dropped from every path,
        when it is the only heading at the top level (H1/Title/`=`) — otherwise every
        section of a typical README would be prefixed with the README's name.
        """
        self._flush()
        title = None
        if self._headings:
            top = min(level for level, _ in self._headings)
            first_level, first_text = self._headings[0]
            at_top = sum(1 for level, _ in self._headings if level == top)
            if first_level == top <= 1 and at_top == 1:
                title = first_text
                for section in self._sections:
                    if section.path[:1] == [first_text]:
                        section.path = section.path[1:]
            else:
                title = next((text for level, text in self._headings if level <= 1), None)
        if not self._sections:
            # Stub pages sometimes say everything in their headings ("## Go to the
            # quick start to begin"); index those words rather than refuse the file.
            words = [text for _, text in self._headings if text != title]
            if words:
                self._sections.append(Section([], "\n".join(words)))
        return title, _merge_same_path(self._sections)


def _merge_same_path(sections: list[Section]) -> list[Section]:
    """Join neighbours that ended up with the same path (e.g. text around a dropped title)."""
    # Texts are joined once per run: appending to a string each time is quadratic when
    # thousands of sections repeat one heading.
    runs: list[tuple[Section, list[str]]] = []
    for section in sections:
        if runs and runs[-1][0].path == section.path and runs[-1][0].page == section.page:
            runs[-1][1].append(section.text)
        else:
            runs.append((section, [section.text]))
    return [Section(first.path, "\n\n".join(texts), first.page) for first, texts in runs]
