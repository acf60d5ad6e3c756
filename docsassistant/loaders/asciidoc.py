"""AsciiDoc (Antora style): `=` headings, attributes, xrefs, includes, delimited blocks.

This is a line-based approximation of Asciidoctor, good enough to index reference docs:
listing blocks become fenced code (so the chunker keeps them whole), tables become
` | ` rows, and macros are reduced to their visible labels.
"""

from __future__ import annotations

import re
from pathlib import Path

from docsassistant.loaders import Section, SectionBuilder, read_text
from docsassistant.loaders.html import html_to_text

_MAX_INCLUDE_DEPTH = 4
_HEADING = re.compile(r"^(={1,6})[ \t]+(\S.*?)(?:[ \t]+=+)?[ \t]*$")
_ATTRIBUTE_ENTRY = re.compile(r"^:(!?[\w][\w-]*!?):(?:[ \t]+(.*?))?[ \t]*$")
_INCLUDE = re.compile(r"^include::([^\[]+)\[[^\]]*\][ \t]*$")
_DELIMITER = re.compile(r"^(?:-{4,}|\.{4,}|\+{4,}|/{4,}|={4,}|\*{4,}|_{4,}|--|[|!,:]={3,})$")
_BLOCK_ATTRIBUTES = re.compile(r"^\[.*\][ \t]*$")
_BLOCK_TITLE = re.compile(r"^\.([^.\s].*)$")
_SKIPPED_LINE = re.compile(
    r"^(?://(?!//).*|(?:ifdef|ifndef|ifeval|endif)::.*|[a-z]+::\S*\[.*\]|\+|<<<|'{3,}|toc::\[\])$"
)
_ADMONITIONS = {"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"}
# Asciidoctor's built-in character attributes, so `{nbsp}` and friends do not leak.
_BUILTIN_ATTRIBUTES = {
    "nbsp": " ",
    "sp": " ",
    "empty": "",
    "zwsp": "",
    "blank": "",
    "plus": "+",
    "startsb": "[",
    "endsb": "]",
    "vbar": "|",
    "caret": "^",
    "asterisk": "*",
    "tilde": "~",
    "backslash": "\\",
    "backtick": "`",
    "two-colons": "::",
    "two-semicolons": ";;",
    "amp": "&",
    "lt": "<",
    "gt": ">",
    "apos": "'",
    "quot": '"',
    "deg": "°",
    "brvbar": "¦",
    "wj": "",
    "cpp": "C++",
    "pp": "++",
}

_ATTRIBUTE_REF = re.compile(r"\{([\w][\w-]*)\}")
_XREF = re.compile(r"xref:([^\[\s]*)\[([^\]]*)\]")
_CROSS_REF = re.compile(r"<<([^,>]+)(?:,\s*([^>]+))?>>")
_LINK = re.compile(r"\blink:(?:\+\+)?([^\[\s]+?)(?:\+\+)?\[([^\]]*)\]")
_URL_MACRO = re.compile(r"\b((?:https?|ftp|mailto):[^\s\[\]<>]+)\[([^\]]*)\]")
_INLINE_IMAGE = re.compile(r"\bimage:[^\s\[]+\[[^\]]*\]")
_TEXT_MACRO = re.compile(r"\b(?:kbd|btn|footnote|pass|stem|latexmath|asciimath|icon):\[([^\]]*)\]")
_CELL_SPLIT = re.compile(r"(?:(?<=\s)|^)[0-9.+*]*[<^>]?(?:\.[<^>])?[adehlmsv]?\|")


def load(path: Path) -> tuple[str | None, list[Section]]:
    """Return (title, sections) for an .adoc/.asciidoc file."""
    root = path.parent.resolve()
    lines = _expand_includes(path, root, depth=0, seen=frozenset())
    return _Parser().parse(lines)


def _expand_includes(path: Path, root: Path, depth: int, seen: frozenset[Path]) -> list[str]:
    """Read `path`, replacing resolvable include:: lines with the target's lines.

    Only `.adoc` files below the document's own folder are read, so an uploaded file
    can never pull in arbitrary files; Antora resource ids (`partial$…`) and
    attribute-based paths cannot be resolved and the line is dropped.
    """
    seen = seen | {path.resolve()}  # a file never includes itself or an includer
    out: list[str] = []
    for line in read_text(path).replace("\r\n", "\n").split("\n"):
        match = _INCLUDE.match(line)
        if not match:
            out.append(line)
            continue
        target = _resolve_include(path, root, match.group(1).strip())
        if target and depth < _MAX_INCLUDE_DEPTH and target not in seen:
            out.extend(_expand_includes(target, root, depth + 1, seen))
    return out


def _resolve_include(path: Path, root: Path, target: str) -> Path | None:
    if "$" in target or "{" in target or "://" in target:
        return None
    candidate = (path.parent / target).resolve()
    if candidate.suffix.lower() not in {".adoc", ".asciidoc"} or not candidate.is_file():
        return None
    return candidate if candidate.is_relative_to(root) else None


class _Parser:
    """Line-by-line AsciiDoc reader feeding a SectionBuilder."""

    def __init__(self) -> None:
        self.builder = SectionBuilder()
        self.attributes: dict[str, str] = dict(_BUILTIN_ATTRIBUTES)
        self.doc_title: str | None = None
        # Open delimited blocks, innermost last. Only the innermost matters for how a
        # line is treated; a line equal to any open delimiter closes it.
        self.blocks: list[str] = []
        self.pending_attrs: list[str] = []

    def parse(self, lines: list[str]) -> tuple[str | None, list[Section]]:
        for raw in lines:
            self._line(raw.rstrip())
        title, sections = self.builder.finish()
        return self.doc_title or self.attributes.get("page-title") or title, sections

    def _line(self, line: str) -> None:
        inner = self.blocks[-1] if self.blocks else ""
        if _is_verbatim(inner) and line != inner:
            if _is_code(inner):
                self.builder.add(line)
            elif inner[0] == "+":
                self.builder.add(html_to_text(line))
            return  # comment blocks are dropped
        if _DELIMITER.match(line):
            self._delimiter(line)
            return
        if not line.strip():
            self.pending_attrs = []
            self.builder.add("")
            return
        if _is_table(inner):
            self._table_row(line)
            return
        if _BLOCK_ATTRIBUTES.match(line):
            self.pending_attrs = [a.strip() for a in line.strip()[1:-1].split(",")]
            return
        if _SKIPPED_LINE.match(line):
            return
        entry = _ATTRIBUTE_ENTRY.match(line)
        if entry and not self.blocks:
            name = entry.group(1)
            if name.startswith("!") or name.endswith("!"):
                self.attributes.pop(name.strip("!"), None)
            else:
                self.attributes[name] = self._inline(entry.group(2) or "")
            return
        heading = _HEADING.match(line)
        if heading and self.blocks:  # not a section inside a block: keep just the words
            self.builder.add(self._inline(heading.group(2)))
            return
        if heading:
            level = len(heading.group(1))
            text = self._inline(heading.group(2))
            if level == 1 and self.doc_title is None:
                self.doc_title = text
            self.builder.heading(level, text)
            self.pending_attrs = []
            return
        title = _BLOCK_TITLE.match(line)
        if title:
            self.builder.add(self._inline(title.group(1)))
            return
        self.builder.add(self._inline(line))

    def _delimiter(self, line: str) -> None:
        if line in self.blocks:
            index = self.blocks.index(line)
            closing = self.blocks[index]
            del self.blocks[index:]
            if _is_code(closing):
                self.builder.add("```")
            self.builder.add("")
            return
        self.blocks.append(line)
        attrs = self.pending_attrs
        self.pending_attrs = []
        if _is_code(line):
            # Listing/literal content is code: fence it, carrying the source language
            # from `[source,java]` (or the `[,java]` shorthand).
            language = attrs[1] if len(attrs) > 1 and attrs[0] in {"source", ""} else ""
            self.builder.add("")
            self.builder.add(f"```{language.strip()}")
        else:
            self.builder.add("")
            if attrs and attrs[0] in _ADMONITIONS:
                self.builder.add(f"{attrs[0]}:")

    def _table_row(self, line: str) -> None:
        if _BLOCK_ATTRIBUTES.match(line) or line.startswith("//"):
            return
        text = line.replace("\\|", "\x00")
        if text.lstrip().startswith("|") or re.match(r"^[0-9.+*]*[<^>]?[adehlmsv]?\|", text):
            cells = [c.strip() for c in _CELL_SPLIT.split(text)]
            if cells and not cells[0]:
                cells = cells[1:]
            text = " | ".join(cells)
        self.builder.add(self._inline(text.replace("\x00", "|")))

    def _inline(self, text: str) -> str:
        """Substitute defined attributes and reduce macros to their visible labels."""
        if "{" in text:
            text = _ATTRIBUTE_REF.sub(lambda m: self.attributes.get(m.group(1), m.group(0)), text)
        if ":" in text or "<<" in text:
            text = _XREF.sub(_xref_label, text)
            text = _CROSS_REF.sub(_cross_ref_label, text)
            text = _LINK.sub(lambda m: _link_label(m.group(2)) or m.group(1), text)
            text = _URL_MACRO.sub(lambda m: _link_label(m.group(2)) or m.group(1), text)
            text = _INLINE_IMAGE.sub("", text)
            text = _TEXT_MACRO.sub(r"\1", text)
        return text


def _is_verbatim(delimiter: str) -> bool:
    """Listing, literal, passthrough and comment blocks: content is not AsciiDoc."""
    return delimiter[:1] in {"-", ".", "+", "/"} and delimiter != "--"


def _is_code(delimiter: str) -> bool:
    return delimiter[:1] in {"-", "."} and delimiter != "--"


def _is_table(delimiter: str) -> bool:
    return delimiter[:1] in {"|", "!", ",", ":"}


def _xref_label(match: re.Match[str]) -> str:
    return _link_label(match.group(2)) or _target_label(match.group(1))


def _cross_ref_label(match: re.Match[str]) -> str:
    if match.group(2):
        return match.group(2).strip()
    anchor = match.group(1).strip()
    if "#" in anchor or anchor.endswith(".adoc"):
        return _target_label(anchor)
    # <<run-all-migrations>> renders as the target section's title; the id is close.
    return anchor.lstrip("_").replace("_", " ").replace("-", " ")


def _target_label(target: str) -> str:
    """`page.adoc#frag` -> `page`; `#frag` -> `frag`."""
    path, _, fragment = target.partition("#")
    return Path(path).stem if path else fragment


def _link_label(label: str) -> str:
    """Visible text of a link label, without window=/role= attributes or the trailing ^."""
    parts = [p for p in label.split(",") if "=" not in p] if "=" in label else [label]
    return ",".join(parts).strip().rstrip("^").strip().strip('"')
