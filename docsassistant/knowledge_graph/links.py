"""Links between documents: Markdown `[label](path)`, AsciiDoc `xref:` and `link:`.

The loaders keep only a link's label in the chunk text, so links are read from the
raw file. A target becomes a `target_path` that is matched against the component's
`source_path`s: relative paths are resolved against the linking document's folder;
Antora xrefs (`xref:module:api/tools.adoc#anchor`) are resolved by their page path,
which is the tail of the target's source_path.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from docsassistant.knowledge_graph.records import LinkTarget

_MARKDOWN = re.compile(r"(?<!!)\[([^\]\n]{0,200})\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_XREF = re.compile(r"xref:([^\[\s]+)\[([^\]\n]*)\]")
_ADOC_LINK = re.compile(r"\blink:(?:\+\+)?([^\[\s]+?)(?:\+\+)?\[([^\]\n]*)\]")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)
_DOC_SUFFIXES = (".md", ".markdown", ".adoc", ".asciidoc", ".html", ".htm", ".txt", ".pdf", ".docx")
MAX_LINKS = 500  # per document


def _clean_label(label: str) -> str:
    return label.split(",")[0].strip().rstrip("^")


def _relative(source_path: str, target: str) -> str | None:
    path = target.split("#")[0].split("?")[0]
    if not path or _SCHEME.match(path) or path.startswith("/"):
        return None
    if not path.lower().endswith(_DOC_SUFFIXES):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source_path), path))
    return None if joined.startswith("..") else joined


def _antora(target: str) -> str | None:
    path = target.split("#")[0]
    # `version@component:module:page.adoc` → `page.adoc`
    path = path.rsplit(":", 1)[-1].rsplit("@", 1)[-1]
    return path if path.lower().endswith((".adoc", ".asciidoc")) else None


def extract_links(text: str, source_path: str, suffix: str) -> list[LinkTarget]:
    """Links of a raw Markdown or AsciiDoc file that point at another document."""
    links: list[LinkTarget] = []
    if suffix in (".md", ".markdown"):
        for match in _MARKDOWN.finditer(text):
            path = _relative(source_path, match.group(2))
            if path:
                links.append(
                    LinkTarget(label=match.group(1).strip(), target=match.group(2), target_path=path)
                )
    elif suffix in (".adoc", ".asciidoc"):
        for match in _XREF.finditer(text):
            path = _antora(match.group(1))
            if path:
                links.append(
                    LinkTarget(label=_clean_label(match.group(2)), target=match.group(1), target_path=path)
                )
        for match in _ADOC_LINK.finditer(text):
            path = _relative(source_path, match.group(1))
            if path:
                links.append(
                    LinkTarget(label=_clean_label(match.group(2)), target=match.group(1), target_path=path)
                )
    return [link for link in links if link.target_path != source_path][:MAX_LINKS]


def links_of_file(path: Path, source_path: str) -> list[LinkTarget]:
    """The links of `path` if it is a Markdown or AsciiDoc file that can be read; else none."""
    suffix = path.suffix.lower()
    if suffix not in (".md", ".markdown", ".adoc", ".asciidoc") or not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return extract_links(text, source_path, suffix)


def chunk_for_link(link: LinkTarget, chunks: list[tuple[int, str]]) -> int:
    """The id of the first chunk whose text shows the link's label (else the first chunk)."""
    if link.label:
        for chunk_id, content in chunks:
            if link.label in content:
                return chunk_id
    return chunks[0][0]
