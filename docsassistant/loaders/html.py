"""HTML pages: main content only, sections from h1–h6, tables as ` | ` rows.

`html_to_text` is also used by the Markdown loader for raw HTML blocks.
"""

from __future__ import annotations

import re
from pathlib import Path

from bs4 import BeautifulSoup, Comment, Declaration, Doctype, NavigableString, Tag
from bs4.element import CData, ProcessingInstruction
from lxml import etree

from docsassistant.loaders import MAX_HTML_CHARS, LoaderError, Section, SectionBuilder, read_text

# Deeper nesting is refused: real pages stay well under 100 levels, and the renderer
# recurses (two Python frames a level, under the default limit of 1,000).
MAX_DEPTH = 200
_DEPTH_PARSER = etree.HTMLParser(recover=True, encoding="utf-8", no_network=True)

# Never content: page chrome, scripts and embedded graphics.
_DROP_TAGS = frozenset(
    {
        "nav",
        "header",
        "footer",
        "aside",
        "script",
        "style",
        "noscript",
        "form",
        "svg",
        "template",
        "iframe",
        "button",
        "select",
        "input",
        "textarea",
        "head",
        "link",
        "meta",
    }
)
# A class/id part starting with one of these marks navigation chrome (e.g. "toc-sidebar",
# "vector-toc-landmark", "navbar", "breadcrumbs", "mw-editsection").
_CHROME_PREFIXES = (
    "nav",
    "sidebar",
    "menu",
    "breadcrumb",
    "footer",
    "toc",
    "editsection",
    "skip",
    "tableofcontents",
)
# Class/id heuristics are only trusted on block elements: inline ones such as Sphinx's
# <span class="menuselection"> are content. Edit links are the exception.
_INLINE_TAGS = frozenset(
    {
        "span",
        "a",
        "code",
        "em",
        "strong",
        "b",
        "i",
        "u",
        "kbd",
        "abbr",
        "sup",
        "sub",
        "small",
        "mark",
        "var",
        "samp",
        "cite",
        "q",
        "time",
        "label",
        "bdi",
        "dfn",
        "s",
        "tt",
    }
)
_INLINE_CHROME_PREFIXES = ("editsection",)
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "blockquote",
        "figure",
        "figcaption",
        "details",
        "summary",
        "hr",
        "address",
        "center",
        "caption",
        "fieldset",
        "body",
        "html",
    }
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_SKIPPED_STRINGS = (Comment, Declaration, Doctype, CData, ProcessingInstruction)
_WORD_SPLIT = re.compile(r"[-_\s]+|(?<=[a-z])(?=[A-Z])")
_SPACES = re.compile(r"[ \t\r\f\v\n]+")
_PLACEHOLDER = "\x00{}\x00"
_PLACEHOLDER_RE = re.compile("\x00(\\d+)\x00")


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for an .html/.htm file."""
    markup = read_text(path, MAX_HTML_CHARS)
    check_depth(markup, path.name)
    soup = BeautifulSoup(markup, "lxml")
    title_tag = soup.find("title")
    title = title_tag.get_text(" ", strip=True) if title_tag else None
    root = _content_root(soup)
    if root is None:
        raise LoaderError(f"{path.name} has no <body> content to index.")
    _remove_chrome(root)
    renderer = _Renderer(split_headings=True)
    renderer.walk(root)
    heading_title, sections = renderer.finish()
    return title or heading_title, sections


def html_to_text(fragment: str) -> str:
    """Reduce an HTML fragment to readable text (no section splitting)."""
    check_depth(fragment, "An HTML block")
    soup = BeautifulSoup(fragment, "html.parser")
    for tag in soup.find_all(["script", "style", "noscript", "svg", "template"]):
        tag.decompose()
    renderer = _Renderer(split_headings=False)
    renderer.walk(soup)
    _, sections = renderer.finish()
    return "\n\n".join(s.text for s in sections)


def check_depth(markup: str, name: str) -> None:
    """Refuse markup nested deeper than MAX_DEPTH, measured with lxml before BeautifulSoup
    sees it: building a soup costs time quadratic in the depth (2 s for 20k nested
    <div>s, ~35 s for 200k), while lxml parses it in milliseconds (libxml2 keeps at most
    255 levels, so a deeper page shows up as at least that deep)."""
    root = etree.fromstring(markup.encode("utf-8"), _DEPTH_PARSER) if markup.strip() else None
    if root is None:
        return
    depth = 0
    for event, _ in etree.iterwalk(root, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if depth > MAX_DEPTH:
            raise LoaderError(
                f"{name} nests HTML elements more than {MAX_DEPTH} levels deep; "
                "no real page does, so it is refused."
            )


def _content_root(soup: BeautifulSoup) -> Tag | None:
    """The element holding the page's main content: <main>, <article>, [role=main], <body>."""
    for candidate in (soup.find("main"), soup.find("article"), soup.find(attrs={"role": "main"})):
        if isinstance(candidate, Tag) and candidate.get_text(strip=True):
            return candidate
    body = soup.body or soup
    return body if isinstance(body, Tag) else None


def _is_chrome(tag: Tag) -> bool:
    if tag.name in _DROP_TAGS or tag.has_attr("hidden") or tag.get("aria-hidden") == "true":
        return True
    if tag.get("role") in {"navigation", "banner", "contentinfo", "search", "complementary"}:
        return True
    prefixes = _INLINE_CHROME_PREFIXES if tag.name in _INLINE_TAGS else _CHROME_PREFIXES
    names = [*(tag.get("class") or []), str(tag.get("id") or "")]
    for name in names:
        for part in [*_WORD_SPLIT.split(str(name)), str(name)]:
            if part and part.lower().startswith(prefixes):
                return True
    return False


def _remove_chrome(root: Tag) -> None:
    """Drop navigation/boilerplate below `root`.

    A class-marked element holding most of the page text is kept: layouts like
    `<div class="with-sidebar">` sometimes wrap the whole article.
    """
    # One walk from the top that never enters a removed subtree: checking `decomposed`
    # on every tag of a flat list instead costs time quadratic in the nesting depth.
    total = len(root.get_text(strip=True)) or 1
    stack = [child for child in reversed(root.contents) if isinstance(child, Tag)]
    while stack:
        tag = stack.pop()
        if _is_chrome(tag) and (tag.name in _DROP_TAGS or len(tag.get_text(strip=True)) <= total / 2):
            tag.decompose()
            continue
        stack.extend(child for child in reversed(tag.contents) if isinstance(child, Tag))


class _Renderer:
    """Walks a DOM subtree, producing text with block structure and heading sections."""

    def __init__(self, split_headings: bool) -> None:
        self.split_headings = split_headings
        self.builder = SectionBuilder()
        self.parts: list[str] = []
        self.verbatim: list[str] = []

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, _SKIPPED_STRINGS):
                continue
            if isinstance(child, NavigableString):
                self.parts.append(_SPACES.sub(" ", str(child)))
            elif isinstance(child, Tag):
                self._tag(child)

    def _tag(self, tag: Tag) -> None:
        name = tag.name
        if name in {"script", "style", "noscript", "template", "head"}:
            return
        if name in _HEADINGS:
            text = _flat_text(tag)
            if self.split_headings:
                self._flush_parts()
                self.builder.heading(_HEADINGS[name], text)
            else:
                self.parts.append(f"\n\n{text}\n\n")
        elif name == "pre":
            # Code must survive whitespace normalisation untouched: park it behind a
            # placeholder and fence it so the chunker keeps it in one piece.
            self.verbatim.append(f"```\n{tag.get_text().strip(chr(10))}\n```")
            self.parts.append("\n\n" + _PLACEHOLDER.format(len(self.verbatim) - 1) + "\n\n")
        elif name == "br":
            self.parts.append("\n")
        elif name == "table":
            self.parts.append("\n\n" + _table_text(tag) + "\n\n")
        elif name == "li":
            self.parts.append("\n- ")
            self.walk(tag)
        elif name == "img":
            alt = str(tag.get("alt") or "").strip()
            if alt:
                self.parts.append(f" {alt} ")
        elif name in _BLOCK_TAGS:
            self.parts.append("\n\n")
            self.walk(tag)
            self.parts.append("\n\n")
        else:
            self.walk(tag)

    def _flush_parts(self) -> None:
        text = "".join(self.parts)
        self.parts = []
        lines = [" ".join(line.split()) for line in text.split("\n")]
        lines = [line for line in lines if line != "-"]  # list items that held only an image
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        text = _PLACEHOLDER_RE.sub(lambda m: self.verbatim[int(m.group(1))], text)
        if text:
            self.builder.add(text)

    def finish(self) -> tuple[str | None, list[Section]]:
        self._flush_parts()
        return self.builder.finish()


def _table_text(table: Tag) -> str:
    """One line per row, cells joined with ' | ' (nested tables are flattened into cells)."""
    rows = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue
        cells = [_flat_text(cell) for cell in tr.find_all(["td", "th"], recursive=False)]
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def _flat_text(tag: Tag) -> str:
    """The text of an element on one line, spaced the way a browser would show it."""
    renderer = _Renderer(split_headings=False)
    renderer.walk(tag)
    _, sections = renderer.finish()
    # Lines (list items, <br>-separated text) become one line: "a; b" unless punctuated.
    out = ""
    for raw in "\n".join(s.text for s in sections).split("\n"):
        line = " ".join(raw.removeprefix("- ").split())
        if line:
            out = f"{out}{' ' if not out or out[-1] in '.:;,!?' else '; '}{line}"
    return out.strip()
