"""Section-aware chunking: a chunk never spans two sections.

A section that fits in `chunk_size` is one chunk. A longer one is cut at paragraph
boundaries first, then lines, sentences, words and finally hard character cuts, and
consecutive pieces share about `overlap` characters so a sentence cut at a boundary is
still whole in one of them. Fenced code blocks that fit are never split; longer ones are
split by lines and each piece is re-fenced so it still reads as code.

This is a small purpose-built splitter rather than langchain's RecursiveCharacterTextSplitter
because the latter does not know about code fences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docsassistant.loaders import LoadedDocument, Section

SECTION_SEPARATOR = " › "

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LINE_START = re.compile(r"\n+")
_SENTENCE_START = re.compile(r"[.!?]\s+")
# Below this many characters of room, re-fencing a split code block is pointless.
_MIN_CODE_BUDGET = 40


@dataclass
class ChunkDraft:
    """A chunk before embedding: position in the document, section label and text."""

    ordinal: int
    section: str
    content: str


@dataclass
class _Unit:
    text: str
    sep: str  # what joins this unit to the previous one when they share a chunk
    code: bool = False


def section_label(section: Section) -> str:
    """`HNSW › Query Options`; PDF pages add `p. 3`; "" when there is no heading or page."""
    parts = list(section.path)
    if section.page is not None:
        parts.append(f"p. {section.page}")
    return SECTION_SEPARATOR.join(parts)


def chunk_document(doc: LoadedDocument, chunk_size: int = 1000, overlap: int = 150) -> list[ChunkDraft]:
    """Split every section of `doc` into chunks of at most `chunk_size` characters."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    if not 0 <= overlap < chunk_size:
        raise ValueError(f"overlap must be in [0, chunk_size), got {overlap}")
    drafts: list[ChunkDraft] = []
    for section in doc.sections:
        label = section_label(section)
        for content in split_text(section.text, chunk_size, overlap):
            drafts.append(ChunkDraft(ordinal=len(drafts), section=label, content=content))
    return drafts


def split_text(text: str, chunk_size: int, overlap: int) -> list[str]:
    """Split one section's text into overlapping pieces of at most `chunk_size` characters."""
    text = text.strip("\n").rstrip()
    if not text.strip():
        return []
    if len(text) <= chunk_size:
        return [text]
    units: list[_Unit] = []
    for block, sep, is_code in _blocks(text):
        if len(block) <= chunk_size:
            units.append(_Unit(block, sep, is_code))
            continue
        pieces = _split_code(block, chunk_size, overlap) if is_code else None
        if pieces is not None:
            units.extend(_Unit(piece, sep if i == 0 else "\n", True) for i, piece in enumerate(pieces))
        else:
            pieces_with_seps = _split_prose(block, chunk_size)
            units.extend(
                _Unit(piece, sep if i == 0 else piece_sep, False)
                for i, (piece, piece_sep) in enumerate(pieces_with_seps)
            )
    return _pack(units, chunk_size, overlap)


def prose_outside_code(text: str) -> str:
    """`text` without its fenced code blocks (a chunk's code is always fenced: see `_split_code`)."""
    return "\n".join(block for block, _, is_code in _blocks(text) if not is_code)


def _blocks(text: str) -> list[tuple[str, str, bool]]:
    """Paragraphs and fenced code blocks as (text, separator before it, is_code)."""
    blocks: list[tuple[str, str, bool]] = []
    paragraph: list[str] = []
    sep = ""  # what separated the next block from the previous one in the source

    def flush() -> None:
        nonlocal sep
        if paragraph:
            blocks.append(("\n".join(paragraph), sep, False))
            paragraph.clear()
            sep = "\n"

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if fence:
            flush()
            marker = fence.group(1)
            closing = re.compile(rf"^\s*{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            end = i + 1
            while end < len(lines) and not closing.match(lines[end]):
                end += 1
            blocks.append(("\n".join(lines[i : end + 1]), sep, True))
            sep = "\n"
            i = end + 1
            continue
        if lines[i].strip():
            paragraph.append(lines[i])
        else:
            flush()
            sep = "\n\n"
        i += 1
    flush()
    return blocks


def _split_prose(text: str, size: int, level: int = 0) -> list[tuple[str, str]]:
    """Recursively split by lines, sentences, words, then characters: [(piece, sep)]."""
    if len(text) <= size:
        return [(text, "")]
    if level == 0:
        parts, sep = text.split("\n"), "\n"
    elif level == 1:
        parts, sep = _SENTENCE_END.split(text), " "
    elif level == 2:
        parts, sep = text.split(" "), " "
    else:
        return [(text[i : i + size], "") for i in range(0, len(text), size)]
    parts = [part for part in parts if part.strip()]
    if len(parts) <= 1:
        return _split_prose(text, size, level + 1)
    pieces: list[tuple[str, str]] = []
    for part in parts:
        sub = _split_prose(part, size, level + 1)
        sub[0] = (sub[0][0], sep)
        pieces.extend(sub)
    return pieces


def _split_code(block: str, size: int, overlap: int) -> list[str] | None:
    """Split an oversize fenced block by lines, re-fencing each piece; None if too cramped."""
    lines = block.split("\n")
    opening = lines[0]
    fence = _FENCE.match(opening)
    has_close = len(lines) > 1 and _FENCE.match(lines[-1]) is not None
    closing = lines[-1].strip() if has_close else (fence.group(1) if fence else "```")
    body = lines[1:-1] if has_close else lines[1:]
    budget = size - len(opening) - len(closing) - 2
    if budget < _MIN_CODE_BUDGET:
        return None
    flat: list[str] = []
    for line in body:  # a line longer than the budget can only be cut
        flat.extend([line[i : i + budget] for i in range(0, len(line), budget)] or [""])
    groups: list[list[str]] = []
    current: list[str] = []
    for line in flat:
        if current and len("\n".join([*current, line])) > budget:
            groups.append(current)
            # Repeat up to `overlap` characters of trailing lines (never the whole group).
            carry: list[str] = []
            for previous in reversed(current[1:]):
                if len("\n".join([previous, *carry])) > overlap:
                    break
                carry.insert(0, previous)
            while carry and len("\n".join([*carry, line])) > budget:
                carry.pop(0)
            current = carry
        current.append(line)
    if current:
        groups.append(current)
    return [f"{opening}\n" + "\n".join(group) + f"\n{closing}" for group in groups]


def _pack(units: list[_Unit], size: int, overlap: int) -> list[str]:
    """Greedily fill chunks with units; start each new chunk with the previous one's tail."""
    chunks: list[str] = []
    current = ""
    last_code = False
    for unit in units:
        if not current:
            current, last_code = unit.text, unit.code
            continue
        if len(current) + len(unit.sep) + len(unit.text) <= size:
            current += unit.sep + unit.text
            last_code = unit.code
            continue
        chunks.append(current)
        room = size - len(unit.sep) - len(unit.text)
        # Code is not carried over: half a function in front of the next text helps nobody.
        tail = "" if last_code else _tail(current, min(overlap, room))
        current = tail + unit.sep + unit.text if tail else unit.text
        last_code = unit.code
    if current.strip():
        chunks.append(current)
    return chunks


def _tail(text: str, limit: int) -> str:
    """About the last `limit` characters of `text`, starting at a sentence or word boundary.

    At most half of `text`, so a short chunk is never repeated whole in the next one.
    """
    limit = min(limit, len(text) // 2)
    if limit <= 0:
        return ""
    start = len(text) - limit
    window = text[start:]
    # Never carry a fence line: it would open or close a code block out of context.
    fences = [m.end() for m in re.finditer(r"^[ \t]*(?:`{3,}|~{3,}).*(?:\n|$)", window, re.M)]
    if fences:
        return window[fences[-1] :].strip()
    # Prefer starting at a line start (keeps table rows and list items whole), then a
    # sentence start; otherwise at least do not start in the middle of a word.
    boundary = _LINE_START.search(window, 0, max(1, 2 * len(window) // 3)) or _SENTENCE_START.search(
        window, 0, max(1, len(window) // 2)
    )
    if boundary:
        window = window[boundary.end() :]
    elif not text[start - 1].isspace():
        space = re.search(r"\s", window)
        window = window[space.end() :] if space else ""  # a lone word fragment is no context
    return window.strip()
