"""Markdown: front matter stripped, ATX headings build the path, raw HTML reduced to text."""

from __future__ import annotations

import html
import re
from pathlib import Path

import frontmatter

from docsassistant.loaders import Section, SectionBuilder, read_text
from docsassistant.loaders.html import html_to_text

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})(.*)$")
# CommonMark HTML block starts. Type 6: a block-level tag opens the line (the rest of
# the line may be anything). Type 7: a line holding nothing but one open/close tag; we
# only accept known inline tag names there, so a placeholder like "<your-api-key>" alone
# on a line stays text. Comments, <?...?>, <!DECL> and script/pre/style/textarea too.
_BLOCK_TAG_NAMES = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|"
    "header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|"
    "param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_INLINE_TAG_NAMES = (
    "a|abbr|b|br|code|del|em|font|i|img|ins|kbd|mark|picture|s|small|source|span|strong|sub|"
    "sup|u|video|audio|wbr"
)
_HTML_START = re.compile(
    rf"^ {{0,3}}(?:<!--|<\?|<![A-Za-z]|<(?:script|pre|style|textarea)(?:[\s>]|$)"
    rf"|</?(?:{_BLOCK_TAG_NAMES})(?:[\s/>]|$)"
    rf"|</?(?:{_INLINE_TAG_NAMES})\b[^<>]*>\s*$)",
    re.I,
)
_RAW_END = {"<!--": "-->", "<?": "?>", "<!": ">"}
_RAW_TAGS = re.compile(r"^ {0,3}<(script|pre|style|textarea)(?:[\s>]|$)", re.I)
_LONE_HEADING = re.compile(r"^\s*<h([1-6])\b[^>]*>(.*?)</h\1>\s*$", re.I | re.S)
# Every pattern below scans forward only to the next bracket/`<` of its kind, so a line
# full of unclosed `![`, `<!--` or backticks costs linear time, not quadratic.
_INLINE_TAG = re.compile(rf"<!--[^<]*?-->|</?(?:{_BLOCK_TAG_NAMES}|{_INLINE_TAG_NAMES})\b[^<>]*>", re.I)
_BACKTICKS = re.compile(r"`+")
_IMAGE = re.compile(r"!\[([^\[\]]*)\]\([^()]*\)")
_HEADING_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)")
# Longer lines are never headings (the heading pattern backtracks on long runs of spaces).
_MAX_HEADING_LINE = 1000
_MAX_HEADING_CHARS = 100
_FRONT_MATTER_BLOCK = re.compile(r"^\ufeff?(---|\+\+\+)[ \t]*\n.*?\n\1[ \t]*(?:\n|$)", re.S)


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for a .md/.markdown file."""
    meta_title, body = _split_front_matter(read_text(path))
    heading_title, sections = parse_markdown(body)
    return meta_title or heading_title, sections


def _split_front_matter(text: str) -> tuple[str | None, str]:
    """Strip YAML/TOML front matter; return its `title` (if any) and the body."""
    if not text.lstrip("\ufeff").startswith(("---", "+++")):
        return None, text
    try:
        post = frontmatter.loads(text)
    except Exception:
        # Malformed YAML should not cost the whole document: drop just the block.
        block = _FRONT_MATTER_BLOCK.match(text)
        return None, text[block.end() :] if block else text
    if not post.metadata:
        # A leading `---` rule rather than front matter (or an empty block): keep the text.
        return None, text
    title = post.metadata.get("title")
    return (str(title).strip() or None) if title else None, post.content


def parse_markdown(text: str) -> tuple[str | None, list[Section]]:
    """Split Markdown into heading-scoped sections; returns (title heading, sections)."""
    builder = SectionBuilder()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            i = _copy_fenced_block(lines, i, fence.group(1), builder)
            continue
        heading = _ATX.match(line) if len(line) <= _MAX_HEADING_LINE else None
        if heading:
            builder.heading(len(heading.group(1)), _heading_text(heading.group(2) or ""))
            i += 1
            continue
        if _HTML_START.match(line):
            i = _html_block(lines, i, builder)
            continue
        builder.add(_inline(line))
        i += 1
    return builder.finish()


def _copy_fenced_block(lines: list[str], start: int, marker: str, builder: SectionBuilder) -> int:
    """Copy a fenced code block verbatim; headings inside it are code, not structure."""
    closing = re.compile(rf"^\s*{re.escape(marker[0])}{{{len(marker)},}}\s*$")
    end = start + 1
    while end < len(lines) and not closing.match(lines[end]):
        end += 1
    block = lines[start : end + 1]
    if end >= len(lines):  # unclosed fence: CommonMark runs it to the end of the document
        block.append(marker)
    builder.add("\n".join(block))
    return end + 1


def _html_block(lines: list[str], start: int, builder: SectionBuilder) -> int:
    """Reduce a raw HTML block to text; a lone <hN> block becomes a heading."""
    first = lines[start].lstrip()
    raw = _RAW_TAGS.match(lines[start])
    end_marker = next((end for begin, end in _RAW_END.items() if first.startswith(begin)), None)
    if raw:
        end_marker = f"</{raw.group(1).lower()}>"
    end = start
    if end_marker:
        while end < len(lines) and end_marker not in lines[end].lower():
            end += 1
        end = min(end, len(lines) - 1)
    else:
        # Ordinary HTML blocks end at the first blank line (CommonMark rule 6/7).
        while end + 1 < len(lines) and lines[end + 1].strip():
            end += 1
    block = "\n".join(lines[start : end + 1])
    heading = _LONE_HEADING.match(block)
    if heading:
        text = " ".join(html_to_text(heading.group(2)).split())
        if 0 < len(text) <= _MAX_HEADING_CHARS:
            builder.heading(int(heading.group(1)), text)
            return end + 1
    text = html_to_text(block)
    if text.strip():
        builder.add(text)
    return end + 1


def _inline(line: str) -> str:
    """Strip inline HTML tags, entities and image URLs outside `code spans`."""
    if "<" not in line and "&" not in line and "![" not in line:
        return line
    out, pos = [], 0
    for start, end in code_spans(line):
        out.append(_strip_tags(line[pos:start]))
        out.append(line[start:end])
        pos = end
    out.append(_strip_tags(line[pos:]))
    return "".join(out)


def code_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each `code span`: a backtick run closed by the next run of the same
    length (CommonMark). One pass over the runs, so it stays linear on any line."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)  # next run of the same length
    last_of_length: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last_of_length.get(length)
        last_of_length[length] = i
    spans, i = [], 0
    while i < len(runs):
        j = following[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


def _strip_tags(text: str) -> str:
    # Image URLs (badges, diagrams) are noise for retrieval; the alt text is what's said.
    text = _IMAGE.sub(r"\1", text)
    text = _INLINE_TAG.sub(lambda m: " " if m.group(0).lower().startswith("<br") else "", text)
    return html.unescape(text)


def _heading_text(text: str) -> str:
    """Heading text without links, emphasis markers or inline HTML."""
    text = _HEADING_LINK.sub(r"\1", text)
    text = _strip_tags(text)
    return text.replace("`", "").replace("**", "").replace("__", "").strip()
